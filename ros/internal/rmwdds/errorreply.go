package rmwdds

// DDS services have no error reply: rmw_fastrtps and rmw_cyclonedds send
// nothing when a request fails. Between two afor participants (vendor
// 01.af on both sides) a failed request is answered with an error reply:
// a payload whose first two bytes, 0xaf 0x00, are no CDR encapsulation
// identifier, then two zero option bytes and the error's text. Peers of
// other vendors never get one.

// errorReplyID starts an error reply's payload.
var errorReplyID = [4]byte{0xaf, 0x00, 0, 0}

// maxErrorReply bounds the error text carried.
const maxErrorReply = 1024

// appendErrorReply appends the error reply carrying err's text.
func appendErrorReply(dst []byte, err error) []byte {
	msg := err.Error()
	if len(msg) > maxErrorReply {
		msg = msg[:maxErrorReply]
	}
	return append(append(dst, errorReplyID[:]...), msg...)
}

// parseErrorReply returns the error of an error reply, or false if
// payload is an ordinary reply.
func parseErrorReply(payload []byte) (error, bool) {
	if len(payload) < len(errorReplyID) || [4]byte(payload[:4]) != errorReplyID {
		return nil, false
	}
	msg := payload[4:]
	if len(msg) > maxErrorReply {
		msg = msg[:maxErrorReply]
	}
	return errorf(ErrRemote, "%s", msg), true
}
