package zenoh

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// AuthConfig configures Zenoh's user and password authentication (Rust
// Zenoh's transport/auth/usrpwd): during the handshake the connecting
// side proves it knows the password of its user, with an HMAC (SHA3-256)
// of a nonce the listening side chose, so the password never travels.
// It does not encrypt the link: use tls/ or quic/ for that.
//
// With User and Password set, the session authenticates on every link it
// dials, and fails to link to a node that does not ask for it (as Rust
// Zenoh does). With Users or DictionaryFile set, every link accepted must
// authenticate as one of those users; a node that does not, or gives a
// wrong password, is refused (CLOSE, reason invalid), logged and counted
// under LimitAuth. (Rust Zenoh also requires it of accepted links when only
// User and Password are set, and then refuses them all; here that takes a
// dictionary.)
type AuthConfig struct {
	// User and Password are presented when connecting (user, password).
	User     string
	Password string
	// Users maps the users accepted on inbound links to their passwords.
	Users map[string]string
	// DictionaryFile names a file of "user:password" lines, one user
	// each, added to Users (dictionary_file).
	DictionaryFile string
}

// ErrAuth reports a link refused by user and password authentication.
var ErrAuth = errors.New("zenoh: authentication failed")

// LimitAuth names, in Stats.ByLimit, the inbound links refused by
// authentication (no user, unknown user or wrong password).
const LimitAuth = "Auth"

// authUsrPwd is the id of the user-password method in the auth extension.
const authUsrPwd = 0x2

// extAuth is the id of the auth extension of INIT and OPEN.
const extAuth = 0x3

// Bounds of what the auth extension may carry.
const (
	maxAuthUser = 1 << 10
	maxAuthHMAC = 64
)

// authState is the resolved AuthConfig.
type authState struct {
	user, password []byte
	users          map[string][]byte // nil: inbound links need not authenticate
}

// resolveAuth validates c and reads its dictionary file.
func resolveAuth(c AuthConfig) (*authState, error) {
	a := &authState{}
	switch {
	case c.User != "" && c.Password != "":
		a.user, a.password = []byte(c.User), []byte(c.Password)
	case c.User != "" || c.Password != "":
		return nil, fmt.Errorf("%w: Auth.User and Auth.Password go together", ErrInvalidConfig)
	}
	if len(a.user) > maxAuthUser {
		return nil, fmt.Errorf("%w: Auth.User longer than %d bytes", ErrInvalidConfig, maxAuthUser)
	}
	add := func(u, p string) error {
		if u == "" || p == "" {
			return errors.New("empty user or password")
		}
		if a.users == nil {
			a.users = make(map[string][]byte)
		}
		a.users[u] = []byte(p)
		return nil
	}
	for u, p := range c.Users {
		if err := add(u, p); err != nil {
			return nil, fmt.Errorf("%w: Auth.Users: %w", ErrInvalidConfig, err)
		}
	}
	if c.DictionaryFile != "" {
		b, err := os.ReadFile(c.DictionaryFile)
		if err != nil {
			return nil, fmt.Errorf("%w: Auth.DictionaryFile: %w", ErrInvalidConfig, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			u, p, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%w: Auth.DictionaryFile %s line %d: want user:password", ErrInvalidConfig, c.DictionaryFile, n)
			}
			if err := add(strings.TrimSpace(u), strings.TrimSpace(p)); err != nil {
				return nil, fmt.Errorf("%w: Auth.DictionaryFile %s line %d: %w", ErrInvalidConfig, c.DictionaryFile, n, err)
			}
		}
	}
	return a, nil
}

// authExt wraps methods (an extension chain) as the auth extension.
func authExt(methods ...wire.Extension) wire.Extension {
	body, _ := wire.AppendExtensions(nil, methods) // units, Z64s and small ZBufs: cannot fail
	return wire.Extension{ID: extAuth, Encoding: wire.ExtZBuf, Body: body}
}

// authMethod returns the user-password method of the auth extension among
// exts, if any. A malformed auth extension is an error.
func authMethod(exts []wire.Extension) (*wire.Extension, error) {
	for i := range exts {
		e := &exts[i]
		if e.ID != extAuth || e.Encoding != wire.ExtZBuf || len(e.Body) == 0 {
			continue
		}
		methods, _, err := wire.ReadExtensions(e.Body, wire.Limits{MaxExtensions: 8, MaxExtension: maxAuthUser + maxAuthHMAC + 32})
		if err != nil {
			return nil, fmt.Errorf("%w: auth extension: %w", ErrProtocol, err)
		}
		for j := range methods {
			if methods[j].ID == authUsrPwd {
				return &methods[j], nil
			}
		}
	}
	return nil, nil
}

// usrPwdProof returns the HMAC (SHA3-256, keyed by the nonce's 8 bytes,
// little-endian) of the password.
func usrPwdProof(nonce uint64, password []byte) []byte {
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], nonce)
	m := hmac.New(func() hash.Hash { return sha3.New256() }, key[:])
	m.Write(password)
	return m.Sum(nil)
}

// appendOpenSyn encodes the user and proof of an OpenSyn.
func appendOpenSyn(user, proof []byte) []byte {
	b := wire.AppendZint(nil, uint64(len(user)))
	b = append(b, user...)
	b = wire.AppendZint(b, uint64(len(proof)))
	return append(b, proof...)
}

// parseOpenSyn decodes the user and proof of an OpenSyn.
func parseOpenSyn(b []byte) (user, proof []byte, err error) {
	next := func(max int) ([]byte, error) {
		n, k, err := wire.ReadZint(b)
		if err != nil {
			return nil, err
		}
		b = b[k:]
		if n > uint64(max) || n > uint64(len(b)) {
			return nil, fmt.Errorf("%w: auth field of %d bytes", ErrProtocol, n)
		}
		v := b[:n]
		b = b[n:]
		return v, nil
	}
	if user, err = next(maxAuthUser); err != nil {
		return nil, nil, err
	}
	if proof, err = next(maxAuthHMAC); err != nil {
		return nil, nil, err
	}
	return user, proof, nil
}

// Dialling side.

// initSyn adds the auth extension an INIT syn carries.
func (a *authState) initSyn(m *wire.Init) {
	if a.user != nil {
		m.Exts = append(m.Exts, authExt(wire.Extension{ID: authUsrPwd, Encoding: wire.ExtUnit}))
	}
}

// openSyn answers the listener's INIT ack: the auth extension of our OPEN
// syn, or an error if the listener does not authenticate us.
func (a *authState) openSyn(ack *wire.Init) ([]wire.Extension, error) {
	if a.user == nil {
		return nil, nil
	}
	m, err := authMethod(ack.Exts)
	if err != nil {
		return nil, err
	}
	if m == nil || m.Encoding != wire.ExtZ64 {
		return nil, fmt.Errorf("%w: the remote does not ask for a user and password (Auth.User is set)", ErrAuth)
	}
	body := appendOpenSyn(a.user, usrPwdProof(m.Value, a.password))
	return []wire.Extension{authExt(wire.Extension{ID: authUsrPwd, Encoding: wire.ExtZBuf, Body: body})}, nil
}

// openAck checks the listener's OPEN ack.
func (a *authState) openAck(ack *wire.Open) error {
	if a.user == nil {
		return nil
	}
	m, err := authMethod(ack.Exts)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("%w: the remote did not confirm the authentication", ErrAuth)
	}
	return nil
}

// Listening side.

// initAck checks an INIT syn and returns the auth extension of our INIT
// ack with the nonce it holds, or an error refusing the link.
func (a *authState) initAck(syn *wire.Init) ([]wire.Extension, uint64, error) {
	if a.users == nil {
		return nil, 0, nil
	}
	m, err := authMethod(syn.Exts)
	if err != nil {
		return nil, 0, err
	}
	if m == nil {
		return nil, 0, fmt.Errorf("%w: the remote offers no user and password", ErrAuth)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	nonce := binary.LittleEndian.Uint64(b[:])
	return []wire.Extension{authExt(wire.Extension{ID: authUsrPwd, Encoding: wire.ExtZ64, Value: nonce})}, nonce, nil
}

// openAck checks an OPEN syn against nonce and returns the auth extension
// of our OPEN ack, or an error refusing the link.
func (a *authState) checkOpen(syn *wire.Open, nonce uint64) ([]wire.Extension, error) {
	if a.users == nil {
		return nil, nil
	}
	m, err := authMethod(syn.Exts)
	if err != nil {
		return nil, err
	}
	if m == nil || m.Encoding != wire.ExtZBuf {
		return nil, fmt.Errorf("%w: the remote sent no user and password", ErrAuth)
	}
	user, proof, err := parseOpenSyn(m.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuth, err)
	}
	pwd, ok := a.users[string(user)]
	if !ok {
		return nil, fmt.Errorf("%w: unknown user %q", ErrAuth, user)
	}
	if !hmac.Equal(proof, usrPwdProof(nonce, pwd)) {
		return nil, fmt.Errorf("%w: wrong password for user %q", ErrAuth, user)
	}
	return []wire.Extension{authExt(wire.Extension{ID: authUsrPwd, Encoding: wire.ExtUnit})}, nil
}
