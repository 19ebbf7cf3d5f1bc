package keyexpr_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/afor-go/afor/keyexpr"
)

func Example() {
	sub := keyexpr.MustNew("robot/*/pose")
	for _, key := range []string{"robot/1/pose", "robot/1/arm/pose", "@robot/1/pose"} {
		fmt.Println(key, sub.Intersects(keyexpr.MustNew(key)))
	}
	// Output:
	// robot/1/pose true
	// robot/1/arm/pose false
	// @robot/1/pose false
}

func ExampleNew() {
	_, err := keyexpr.New("robot/**/*")
	fmt.Println(err)
	fmt.Println(errors.Is(err, keyexpr.ErrInvalid))

	var e *keyexpr.Error
	if errors.As(err, &e) {
		fmt.Println(e.Chunk, e.Canonical)
	}
	// Output:
	// keyexpr: invalid key expression "robot/**/*": chunk 2 ("*"): "**/*" is not canonical, write "*/**"; the canonical form is "robot/*/**"
	// true
	// 2 robot/*/**
}

func ExampleAutocanonize() {
	k, err := keyexpr.Autocanonize("robot/**/**/$*$*/ar$*$*m")
	fmt.Println(k, err)
	// Output:
	// robot/*/**/ar$*m <nil>
}

func ExampleIntersects() {
	fmt.Println(keyexpr.Intersects("robot/**", "robot/1/pose"))
	fmt.Println(keyexpr.Intersects("robot/a$*", "robot/$*b")) // "robot/ab" matches both
	fmt.Println(keyexpr.Intersects("robot/**", "robot/@admin"))
	// Output:
	// true
	// true
	// false
}

func ExampleIncludes() {
	fmt.Println(keyexpr.Includes("robot/**", "robot/*/pose"))
	fmt.Println(keyexpr.Includes("robot/*/pose", "robot/**"))
	// Output:
	// true
	// false
}

func ExampleKeyExpr_Join() {
	k, err := keyexpr.MustNew("robot/1").Join("**/**/pose")
	fmt.Println(k, err)
	// Output:
	// robot/1/**/pose <nil>
}

func ExampleCheckLimits() {
	deep := strings.Repeat("a/", keyexpr.MaxChunks) + "b" // one chunk too many
	_, err := keyexpr.New(deep)
	fmt.Println(errors.Is(err, keyexpr.ErrTooLong), errors.Is(err, keyexpr.ErrInvalid))
	fmt.Println(keyexpr.CheckLimits("robot/1/pose"))
	// Output:
	// true true
	// <nil>
}
