package main

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The example shows each of the five ways once, each with a new pose: on
// fake time its output is exact.
func TestOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if err := run(ctx, &out); err != nil {
			t.Fatal(err)
		}
		want := `WaitForValue:   x=0.10
WaitForNew:     x=0.40
WaitForNext:    x=0.50 (50 ms after the previous)
Listen:         x=0.60
Listen:         x=0.80
Listen:         x=1.00
skipped by the slow Listen: 4
ListenReliable: x=1.40
ListenReliable: x=1.50
ListenReliable: x=1.60
`
		if got := out.String(); got != want {
			t.Fatalf("output:\n%s\nwant:\n%s", got, want)
		}
	})
}
