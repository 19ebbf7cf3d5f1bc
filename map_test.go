package afor_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/afor-go/afor"
)

func TestMapConvertsAndFailsAlone(t *testing.T) {
	ctx := t.Context()
	src := afor.NewSub[string]()
	defer src.Close()
	n := afor.Map(src, strconv.Atoi)
	l := n.Listener(ctx, afor.QueueSize(0))
	src.Input("1")
	src.Input("2")
	src.Input("x") // a conversion error ends only the derived sub
	mustEqual(t, src.Input("3"), true)
	for _, want := range []int{1, 2} {
		v, err := l.Next(ctx)
		mustEqual(t, err, nil)
		mustEqual(t, v, want)
	}
	_, err := l.Next(ctx)
	if !errors.Is(err, afor.ErrClosed) || !errors.Is(err, strconv.ErrSyntax) {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(n.Err(), strconv.ErrSyntax) {
		t.Fatalf("Err = %v", n.Err())
	}
	mustEqual(t, src.Err(), nil)
}

func TestMapPanicEndsOnlyDerived(t *testing.T) {
	src := afor.NewSub[int]()
	defer src.Close()
	d := afor.Map(src, func(v int) (int, error) { return 10 / v, nil })
	src.Input(0)
	mustEqual(t, errors.Is(d.Err(), afor.ErrCallbackPanic), true)
	mustEqual(t, src.Input(1), true)
}

func TestMapCloseDetachesAndSourceCloseCloses(t *testing.T) {
	src := afor.NewSub[int]()
	d := afor.Map(src, func(v int) (int, error) { return v * 2, nil })
	calls := 0
	d.OnInput(func(int) { calls++ })
	src.Input(1)
	d.Close()
	src.Input(2)
	mustEqual(t, calls, 1)

	d2 := afor.Filter(src, func(v int) bool { return v%2 == 0 })
	src.Input(3)
	src.Input(4)
	v, _ := d2.Value()
	mustEqual(t, v, 4)
	boom := errors.New("transport down")
	src.CloseWithError(boom)
	mustEqual(t, errors.Is(d2.Err(), boom), true)
}

func TestFilterDoesNotAllocate(t *testing.T) {
	src := afor.NewSub[int]()
	defer src.Close()
	even := afor.Filter(src, func(v int) bool { return v%2 == 0 })
	l := even.Listener(t.Context())
	allocs := testing.AllocsPerRun(1000, func() {
		src.Input(1)
		src.Input(2)
		if _, err := l.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Filter allocates %v times per message", allocs)
	}
}
