package dds

import (
	"slices"
	"testing"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// A remote writer's list of matched readers follows its map, once per
// reader, and a change never alters a list handed out before it (the
// receive path iterates it without the participant's lock).
func TestRemoteEndpointReaders(t *testing.T) {
	re := &remoteEndpoint{matchedR: map[rtps.EntityID]*Reader{}}
	r1 := &Reader{guid: rtps.GUID{Entity: rtps.NewUserEntityID(1, rtps.KindReaderNoKey)}}
	r2 := &Reader{guid: rtps.GUID{Entity: rtps.NewUserEntityID(2, rtps.KindReaderNoKey)}}
	re.matchReader(r1)
	re.matchReader(r1)
	re.matchReader(r2)
	before := re.readers
	if !slices.Equal(before, []*Reader{r1, r2}) {
		t.Fatalf("readers %v, want r1, r2", before)
	}
	re.unmatchReader(r1.guid.Entity)
	re.unmatchReader(r1.guid.Entity)
	if !slices.Equal(re.readers, []*Reader{r2}) || len(re.matchedR) != 1 {
		t.Fatalf("after unmatching r1: readers %v, map %v", re.readers, re.matchedR)
	}
	if !slices.Equal(before, []*Reader{r1, r2}) {
		t.Fatalf("a list handed out before changed: %v", before)
	}
	re.matchReader(r1)
	if !slices.Equal(re.readers, []*Reader{r2, r1}) || !slices.Equal(before, []*Reader{r1, r2}) {
		t.Fatalf("readers %v, earlier list %v", re.readers, before)
	}
}
