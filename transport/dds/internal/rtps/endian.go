package rtps

import "encoding/binary"

// Readers of fixed-size fields in either byte order. Callers check lengths.

func u16(b []byte, le bool) uint16 {
	if le {
		return binary.LittleEndian.Uint16(b)
	}
	return binary.BigEndian.Uint16(b)
}

func u32(b []byte, le bool) uint32 {
	if le {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}

// seqNum reads a SequenceNumber (int32 high, uint32 low).
func seqNum(b []byte, le bool) SequenceNumber {
	return SequenceNumber(int64(int32(u32(b, le)))<<32 | int64(u32(b[4:], le)))
}

func timeAt(b []byte, le bool) Time {
	return Time{Sec: int32(u32(b, le)), Frac: u32(b[4:], le)}
}

func durationAt(b []byte, le bool) Duration {
	return Duration{Sec: int32(u32(b, le)), Frac: u32(b[4:], le)}
}

func locatorAt(b []byte, le bool) Locator {
	l := Locator{Kind: int32(u32(b, le)), Port: u32(b[4:], le)}
	copy(l.Addr[:], b[8:24])
	return l
}

func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func le16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
