package rmwdds

import (
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// GIDOf returns the rmw GID of a DDS entity: its 16-byte GUID, as
// rmw_fastrtps and rmw_cyclonedds give it (and as ros_discovery_info lists
// it).
func GIDOf(g dds.GUID) rmw.GID { return rmw.GID(g) }

// GUIDOf returns the DDS GUID a GID was made from.
func GUIDOf(g rmw.GID) dds.GUID { return dds.GUID(g) }

// isReader reports whether g names a reader: its entity kind (the last
// byte) has bit 0x04 (user 0x04 and 0x07, built-in 0xc4 and 0xc7).
func isReader(g dds.GUID) bool { return g[15]&0x04 != 0 }
