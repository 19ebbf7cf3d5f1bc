package dynmsg_test

import (
	"sync"
	"testing"

	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

var (
	sharedOnce sync.Once
	sharedReg  *idl.Registry
	sharedErr  error
)

// registry returns a registry of the shipped interfaces, loaded once.
func registry(t testing.TB) *idl.Registry {
	t.Helper()
	sharedOnce.Do(func() { sharedReg, sharedErr = dynmsg.NewRegistry() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedReg
}

func mustType(t testing.TB, reg *idl.Registry, name string) *dynmsg.Type {
	t.Helper()
	typ, err := dynmsg.NewType(reg, name)
	if err != nil {
		t.Fatalf("NewType(%s): %v", name, err)
	}
	return typ
}
