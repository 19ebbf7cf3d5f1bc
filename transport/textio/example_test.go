package textio_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/afor-go/afor/transport/textio"
)

func ExampleFromReader() {
	start := make(chan struct{})
	lines := textio.FromReader(strings.NewReader("# robot log\npose 1 2\r\npose 3 4\n"),
		textio.WithStartSignal(start),
		textio.WithPreprocess(func(line string) (string, bool) {
			line = strings.TrimSpace(line)
			return line, !strings.HasPrefix(line, "#")
		}))
	all := lines.ListenReliable(context.Background())
	close(start) // the listener is registered: read
	for line := range all {
		fmt.Println(line)
	}
	fmt.Println("end:", lines.Err())
	// Output:
	// pose 1 2
	// pose 3 4
	// end: <nil>
}

func ExampleFromCommand() {
	start := make(chan struct{})
	cmd := exec.Command("sh", "-c", "echo hello; echo world; exit 2")
	lines, err := textio.FromCommand(context.Background(), cmd, textio.WithStartSignal(start))
	if err != nil {
		fmt.Println(err)
		return
	}
	all := lines.ListenReliable(context.Background())
	close(start)
	for line := range all {
		fmt.Println(line)
	}
	fmt.Println("end:", lines.Err())
	// Output:
	// hello
	// world
	// end: textio: sh: exit status 2
}
