package rmwdds

import "bytes"

// USER_DATA keys of the ROS 2 DDS middlewares.
const (
	keyTypeHash = "typehash"
	keyEnclave  = "enclave"
	hashPrefix  = "RIHS01_"
	hashLen     = len(hashPrefix) + 64
)

// checkTypeHash reports whether h is "RIHS01_" and 64 lowercase hex digits.
func checkTypeHash(h string) error {
	if len(h) != hashLen || h[:len(hashPrefix)] != hashPrefix {
		return errorf(ErrInvalid, "type hash %q is not RIHS01_ and 64 hex digits", h)
	}
	for i := len(hashPrefix); i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return errorf(ErrInvalid, "type hash %q is not RIHS01_ and 64 hex digits", h)
		}
	}
	return nil
}

// TypeHashUserData returns the USER_DATA every ROS 2 endpoint announces:
// "typehash=RIHS01_<64 hex digits>;". Request and reply endpoints carry
// the hashes of the request and response messages, not the service's.
func TypeHashUserData(hash string) ([]byte, error) {
	if err := checkTypeHash(hash); err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(keyTypeHash)+2+len(hash))
	b = append(b, keyTypeHash...)
	b = append(b, '=')
	b = append(b, hash...)
	return append(b, ';'), nil
}

// EnclaveUserData returns the USER_DATA of a ROS 2 participant:
// "enclave=<enclave>;".
func EnclaveUserData(enclave string) []byte {
	return []byte(keyEnclave + "=" + enclave + ";")
}

// userDataValue returns the value of key in USER_DATA of the form
// "k1=v1;k2=v2;", the first one if the key repeats.
func userDataValue(b []byte, key string) (string, bool) {
	for len(b) > 0 {
		var item []byte
		item, b, _ = bytes.Cut(b, []byte{';'})
		k, v, ok := bytes.Cut(item, []byte{'='})
		if ok && string(k) == key {
			return string(v), true
		}
	}
	return "", false
}

// ParseTypeHash returns the type hash an endpoint announces in its
// USER_DATA: "" and no error when there is none (older ROS 2 releases and
// other DDS applications), ErrMalformed when it is not a valid RIHS01
// hash.
func ParseTypeHash(userData []byte) (string, error) {
	v, ok := userDataValue(userData, keyTypeHash)
	if !ok {
		return "", nil
	}
	if err := checkTypeHash(v); err != nil {
		return "", errorf(ErrMalformed, "USER_DATA %s=%q is not a type hash", keyTypeHash, v)
	}
	return v, nil
}

// ParseEnclave returns the security enclave a participant announces in its
// USER_DATA, "/" when it announces none.
func ParseEnclave(userData []byte) string {
	if v, ok := userDataValue(userData, keyEnclave); ok && v != "" {
		return v
	}
	return "/"
}
