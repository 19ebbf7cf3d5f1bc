package rmwdds

import (
	"errors"
	"strings"
	"testing"
)

func TestErrorReply(t *testing.T) {
	b := appendErrorReply(nil, errors.New("not today"))
	err, ok := parseErrorReply(b)
	if !ok || !errors.Is(err, ErrRemote) || !strings.Contains(err.Error(), "not today") {
		t.Errorf("parseErrorReply(%x) = %v, %v", b, err, ok)
	}
	if _, ok := parseErrorReply([]byte{0, 1, 0, 0, 1, 0, 0, 0}); ok {
		t.Error("a CDR reply taken for an error reply")
	}
	long := appendErrorReply(nil, errors.New(strings.Repeat("x", 3*maxErrorReply)))
	if len(long) != len(errorReplyID)+maxErrorReply {
		t.Errorf("error reply of %d bytes, want the text cut to %d", len(long), maxErrorReply)
	}
}

// FuzzParseErrorReply checks that the error reply decoder never panics and
// bounds the text it keeps.
func FuzzParseErrorReply(f *testing.F) {
	f.Add(appendErrorReply(nil, errors.New("boom")))
	f.Add([]byte{0xaf, 0})
	f.Add([]byte{0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		err, ok := parseErrorReply(b)
		if ok && len(err.Error()) > len(ErrRemote.Error())+2+maxErrorReply {
			t.Fatalf("error text of %d bytes", len(err.Error()))
		}
	})
}
