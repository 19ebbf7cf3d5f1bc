package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/tf2"
)

func tfCommands() []command {
	return []command{
		{"tf echo", "SOURCE TARGET", "print the transform from TARGET to SOURCE, as tf2_echo", tfEcho},
		{"tf frames", "", "print the tree of frames (YAML, text or a Graphviz dot file), as view_frames", tfFrames},
	}
}

// tfListen opens the command's node and a listener feeding a new buffer.
func tfListen(ctx context.Context, rf *rosFlags) (*cliNode, *tf2.Buffer, error) {
	cn, err := rf.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	buf := tf2.NewBuffer()
	if _, err := tf2.NewListener(cn.node, buf); err != nil { // closed with the node
		cn.Close()
		return nil, nil, err
	}
	return cn, buf, nil
}

func tfEcho(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "tf echo", "SOURCE TARGET [flags]", "Print the transform from frame TARGET to frame SOURCE (the pose of TARGET in SOURCE) at the latest\ntime both are known, as tf2_echo does: translation, rotation as a quaternion and as roll, pitch,\nyaw, and the 4x4 matrix.")
	rf := f.ros(false)
	rate := f.Float64("rate", 1, "print this many times a second")
	once := f.Bool("once", false, "print once and exit")
	count := f.Int("count", 0, "print N times and exit (0: until Ctrl-C)")
	pos, err := f.parse(args, 2, 2)
	if err != nil {
		return err
	}
	if *rate <= 0 || math.IsNaN(*rate) || math.IsInf(*rate, 0) {
		return fmt.Errorf("%w: --rate %g: want a positive number", ErrUsage, *rate)
	}
	if *count < 0 {
		return fmt.Errorf("%w: --count %d: want 0 or more", ErrUsage, *count)
	}
	if *once {
		*count = 1
	}
	source, target := pos[0], pos[1]
	cn, buf, err := tfListen(ctx, rf)
	if err != nil {
		return err
	}
	defer cn.Close()

	// Wait for the first transform, saying why once a second, as tf2_echo.
	for {
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := buf.WaitForTransform(wctx, source, target, tf2.Latest)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil // Ctrl-C
		}
		if errors.Is(err, tf2.ErrInvalidArgument) {
			return err
		}
		fmt.Fprintf(env.Stderr, "Waiting for transform %s ->  %s: %v\n", source, target, lastCause(err))
	}

	r, err := afor.NewRate(*rate)
	if err != nil {
		return err
	}
	defer r.Close()
	n := 0
	for range r.Listen(ctx) {
		ts, err := buf.LookupTransform(source, target, tf2.Latest)
		if err != nil {
			fmt.Fprintf(env.Stdout, "Failure at %.9f\nException thrown:%v\nThe current list of frames is:\n%s\n",
				float64(cn.node.Clock().Now().UnixNano())/1e9, err, buf.AllFramesAsString())
		} else {
			printEcho(env.Stdout, ts)
		}
		n++
		if *count > 0 && n >= *count {
			return nil
		}
	}
	return nil
}

// lastCause strips WaitForTransform's "waiting ... deadline exceeded" off
// the lookup error it wraps.
func lastCause(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !errors.Is(e, context.DeadlineExceeded) {
				return e
			}
		}
	}
	return err
}

// printEcho prints a transform as tf2_echo does.
func printEcho(w io.Writer, ts geometry_msgs.TransformStamped) {
	t, q := ts.Transform.Translation, ts.Transform.Rotation
	roll, pitch, yaw := tf2.RPY(q)
	const deg = 180 / math.Pi
	fmt.Fprintf(w, "At time %d.%d\n", ts.Header.Stamp.Sec, ts.Header.Stamp.Nanosec)
	fmt.Fprintf(w, "- Translation: [%.3f, %.3f, %.3f]\n", t.X, t.Y, t.Z)
	fmt.Fprintf(w, "- Rotation: in Quaternion [%.3f, %.3f, %.3f, %.3f]\n", q.X, q.Y, q.Z, q.W)
	fmt.Fprintf(w, "- Rotation: in RPY (radian) [%.3f, %.3f, %.3f]\n", roll, pitch, yaw)
	fmt.Fprintf(w, "- Rotation: in RPY (degree) [%.3f, %.3f, %.3f]\n", roll*deg, pitch*deg, yaw*deg)
	fmt.Fprintln(w, "- Matrix:")
	m := tf2.RotationMatrix(q)
	tr := [3]float64{t.X, t.Y, t.Z}
	for i := range 3 {
		fmt.Fprintf(w, " %6.3f %6.3f %6.3f %6.3f\n", m[i][0], m[i][1], m[i][2], tr[i])
	}
	fmt.Fprintf(w, " %6.3f %6.3f %6.3f %6.3f\n", 0.0, 0.0, 0.0, 1.0)
}

func tfFrames(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "tf frames", "[flags]", "Listen to /tf and /tf_static for a while, then print the tree of frames as tf2's\nallFramesAsYAML (parent, broadcaster, rate, newest and oldest transform per frame), or as text,\nand write it as a Graphviz dot file as view_frames does.")
	rf := f.ros(false)
	duration := f.Duration("duration", 5*time.Second, "how long to listen")
	dot := f.String("dot", "", "write the tree in Graphviz's dot language to `FILE` (- for standard output)")
	text := f.Bool("text", false, "print one line per frame (allFramesAsString) instead of YAML")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	cn, buf, err := tfListen(ctx, rf)
	if err != nil {
		return err
	}
	defer cn.Close()
	t := time.NewTimer(*duration)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil
	}
	now := cn.node.Clock().Now()
	switch {
	case *dot == "-":
		fmt.Fprint(env.Stdout, buf.AllFramesAsDot(now))
		return nil
	case *dot != "":
		if err := os.WriteFile(*dot, []byte(buf.AllFramesAsDot(now)), 0o644); err != nil {
			return err
		}
	}
	if *text {
		fmt.Fprint(env.Stdout, buf.AllFramesAsString())
	} else {
		fmt.Fprintln(env.Stdout, buf.AllFramesAsYAML(now))
	}
	return nil
}
