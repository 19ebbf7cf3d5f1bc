package rmwzenoh

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// gidOf derives an entity's GID as rmw_zenoh does: the XXH3-128 hash (seed
// 0) of its whole liveliness token, low 64 bits then high 64 bits, each
// little endian.
func gidOf(token string) rmw.GID {
	h := xxh3.HashString128(token)
	var g rmw.GID
	binary.LittleEndian.PutUint64(g[0:8], h.Lo)
	binary.LittleEndian.PutUint64(g[8:16], h.Hi)
	return g
}
