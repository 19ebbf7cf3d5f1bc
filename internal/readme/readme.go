// Package readme keeps README.md honest: its test builds every complete
// program of the README (a Go block that starts with "package main") in a
// module of its own outside the repository, set up as the README's
// Install section says (a replace directive pointing at this clone), and
// runs them: the Quick start to its end, the ROS 2 talker next to a Go
// listener.
package readme

import (
	"bufio"
	"io"
	"strings"
)

// Programs returns the Go blocks of a Markdown text that are complete
// programs: fenced with ```go and starting with "package main".
func Programs(r io.Reader) ([]string, error) {
	var (
		progs []string
		cur   *strings.Builder
	)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = new(strings.Builder)
		case cur != nil && strings.TrimSpace(line) == "```":
			if src := cur.String(); strings.HasPrefix(src, "package main\n") {
				progs = append(progs, src)
			}
			cur = nil
		case cur != nil:
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	return progs, sc.Err()
}
