package textio

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
)

// TestConformance runs the shared pub/sub suite over a bash child that
// echoes its stdin: publishing writes a line to the child, the sub reads its
// stdout (the Python afor's textio test, as a conformance run).
func TestConformance(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{
		New: func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
			sub, stdin, _ := echoCommand(t)
			publish := func(_ context.Context, msg string) error {
				_, err := io.WriteString(stdin, msg+"\n")
				return err
			}
			return publish, sub
		},
	})
}

// TestConformanceReader runs the suite over an io.Pipe read by FromReader.
func TestConformanceReader(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{
		New: func(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
			r, w := io.Pipe()
			sub := FromReader(r)
			t.Cleanup(func() { w.Close(); sub.Close() })
			publish := func(_ context.Context, msg string) error {
				_, err := fmt.Fprintln(w, msg)
				return err
			}
			return publish, sub
		},
	})
}
