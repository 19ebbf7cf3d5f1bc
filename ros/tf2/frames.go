package tf2

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// FrameIDs returns the frames the buffer knows: every child and parent
// frame of a transform it stored, sorted.
func (b *Buffer) FrameIDs() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	ids := slices.Clone(b.names[1:])
	slices.Sort(ids)
	return ids
}

// FrameExists reports whether the buffer knows frame.
func (b *Buffer) FrameExists(frame string) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	_, ok := b.ids[frame]
	return ok
}

// Parent returns the parent of frame at time t ([Latest]: its newest
// sample). A root frame, which has no transform of its own, gives an error
// matching ErrLookup.
func (b *Buffer) Parent(frame string, t time.Time) (string, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	id, err := b.validFrame("Parent argument frame", frame)
	if err != nil {
		return "", err
	}
	c := b.caches[id]
	if c == nil || c.empty() {
		return "", errorf(ErrLookup, "frame %q has no parent", frame)
	}
	p, err := c.parentAt(stampOf(t))
	if err != nil {
		return "", b.walkError(err, id, id)
	}
	return b.names[p], nil
}

// frameInfo is what the frame listings say of one frame.
type frameInfo struct {
	name, parent, authority string
	rate                    float64
	newest, oldest          int64
	length                  int
}

// framesLocked lists the frames that have a transform of their own, in the
// order they became known.
func (b *Buffer) framesLocked() []frameInfo {
	var out []frameInfo
	for id := 1; id < len(b.names); id++ {
		c := b.caches[id]
		if c == nil || c.empty() {
			continue
		}
		items := c.items()
		fi := frameInfo{name: b.names[id], parent: b.names[c.latest().parent], authority: b.authority[id], length: len(items)}
		if fi.authority == "" {
			fi.authority = "no recorded authority"
		}
		if !c.static {
			fi.newest, fi.oldest = c.latest().stamp, c.oldest().stamp
		}
		// tf2's average rate: samples over the time they span, at least 100 µs.
		fi.rate = float64(fi.length) * 1e9 / float64(max(fi.newest-fi.oldest, int64(100*time.Microsecond)))
		out = append(out, fi)
	}
	return out
}

// AllFramesAsString lists each frame with its parent, one line each
// ("Frame base_link exists with parent odom."), as tf2's
// allFramesAsString.
func (b *Buffer) AllFramesAsString() string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.allFramesAsStringLocked()
}

func (b *Buffer) allFramesAsStringLocked() string {
	var sb strings.Builder
	for _, f := range b.framesLocked() {
		fmt.Fprintf(&sb, "Frame %s exists with parent %s.\n", f.name, f.parent)
	}
	return sb.String()
}

// AllFramesAsYAML describes the tree as tf2's allFramesAsYAML does (the
// frame_yaml of tf2_msgs/srv/FrameGraph, which view_frames reads): per
// frame its parent, broadcaster, average rate, newest and oldest stamps and
// the time the history spans; with now not zero, also how old the newest
// transform is. An empty buffer gives "[]".
func (b *Buffer) AllFramesAsYAML(now time.Time) string {
	b.mu.RLock()
	frames := b.framesLocked()
	b.mu.RUnlock()
	if len(frames) == 0 {
		return "[]"
	}
	var sb strings.Builder
	for _, f := range frames {
		fmt.Fprintf(&sb, "%s: \n  parent: '%s'\n  broadcaster: '%s'\n  rate: %.3f\n  most_recent_transform: %s\n  oldest_transform: %s\n",
			f.name, f.parent, f.authority, f.rate, secs(f.newest), secs(f.oldest))
		if !now.IsZero() {
			fmt.Fprintf(&sb, "  transform_delay: %.3f\n", float64(stampOf(now)-f.newest)/1e9)
		}
		fmt.Fprintf(&sb, "  buffer_length: %.3f\n", float64(f.newest-f.oldest)/1e9)
	}
	return sb.String()
}

// AllFramesAsDot draws the tree in Graphviz's dot language as tf2_tools'
// view_frames does: an edge from each parent to its child labelled with
// the broadcaster, the average rate and the history kept, and a legend
// with the time now (if not zero) pointing at the root (the first, when
// the frames make several trees).
func (b *Buffer) AllFramesAsDot(now time.Time) string {
	b.mu.RLock()
	frames := b.framesLocked()
	b.mu.RUnlock()
	if len(frames) == 0 {
		return "digraph G { \"No tf data received\" }\n"
	}
	children := map[string]bool{}
	for _, f := range frames {
		children[f.name] = true
	}
	var sb strings.Builder
	sb.WriteString("digraph G {\n")
	var roots []string
	for _, f := range frames {
		fmt.Fprintf(&sb, "%s -> %s[label=\" Broadcaster: %s\\nAverage rate: %.3f\\nBuffer length: %.3f\\nMost recent transform: %s\\nOldest transform: %s\\n\"];\n",
			dotQuote(f.parent), dotQuote(f.name), dotEscape(f.authority), f.rate,
			float64(f.newest-f.oldest)/1e9, secs(f.newest), secs(f.oldest))
		if !children[f.parent] && !slices.Contains(roots, f.parent) {
			roots = append(roots, f.parent)
		}
	}
	sb.WriteString("edge [style=invis];\n subgraph cluster_legend { style=bold; color=black; label =\"view_frames Result\";\n")
	if !now.IsZero() {
		fmt.Fprintf(&sb, "\"Recorded at time: %s\"[ shape=plaintext ] ;\n", secs(stampOf(now)))
	}
	sb.WriteString("}")
	if len(roots) > 0 { // the legend points at the first root, as view_frames'
		fmt.Fprintf(&sb, "->%s;\n", dotQuote(roots[0]))
	} else {
		sb.WriteString("\n")
	}
	sb.WriteString("}\n")
	return sb.String()
}

func dotQuote(s string) string { return `"` + dotEscape(s) + `"` }

func dotEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
}
