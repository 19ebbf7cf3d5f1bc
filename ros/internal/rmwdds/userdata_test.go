package rmwdds

import (
	"errors"
	"testing"
)

// Golden type hashes [cap] (dds-rtps.md §5.2).
const (
	hashString         = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
	hashSetFlagRequest = "RIHS01_c62fbb99d94e1b25e8ef9e109f9581956bb1b3361a45a4e5810c36a90d29932e"
	hashSetFlagReply   = "RIHS01_d0814e7f7b4880ab77e9c57426c7aa1562ab69f11eef8e2e968812f9cbd0b059"
)

func TestTypeHashUserData(t *testing.T) {
	for _, h := range []string{hashString, hashSetFlagRequest, hashSetFlagReply, DiscoveryInfoTypeHash} {
		ud, err := TypeHashUserData(h)
		if err != nil {
			t.Fatal(err)
		}
		if want := "typehash=" + h + ";"; string(ud) != want {
			t.Errorf("TypeHashUserData = %q, want %q", ud, want)
		}
		// The USER_DATA of rt/chatter is 0x51 bytes with its NUL-free
		// value: 9 + 71 + 1 (dds-rtps.md §7.3).
		if len(ud) != 0x51 {
			t.Errorf("USER_DATA of %d bytes, want 0x51", len(ud))
		}
		back, err := ParseTypeHash(ud)
		if err != nil || back != h {
			t.Errorf("ParseTypeHash(%q) = %q, %v", ud, back, err)
		}
	}
	for _, bad := range []string{"", "RIHS01_", "RIHS02_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
		"RIHS01_DF668C740482BBD48FB39D76A70DFD4BD59DB1288021743503259E948F6B1A18",
		"RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a1", "typehash=x;"} {
		if _, err := TypeHashUserData(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("TypeHashUserData(%q): %v, want ErrInvalid", bad, err)
		}
	}
}

func TestParseTypeHash(t *testing.T) {
	cases := []struct {
		ud, want string
		err      error
	}{
		{"", "", nil},
		{"enclave=/;", "", nil},
		{"typehash=" + hashString + ";", hashString, nil},
		{"typehash=" + hashString, hashString, nil},
		{"serviceid=1a2b;typehash=" + hashString + ";", hashString, nil},
		{"clientid=00;typehash=" + hashString + ";typehash=x;", hashString, nil},
		{"typehash=;", "", ErrMalformed},
		{"typehash=RIHS01_00;", "", ErrMalformed},
		{"typehash", "", nil},
		{";;;", "", nil},
	}
	for _, c := range cases {
		got, err := ParseTypeHash([]byte(c.ud))
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ParseTypeHash(%q) = %q, %v, want %q, %v", c.ud, got, err, c.want, c.err)
		}
	}
}

func TestEnclave(t *testing.T) {
	if got := string(EnclaveUserData("/")); got != "enclave=/;" {
		t.Errorf("EnclaveUserData = %q", got)
	}
	for ud, want := range map[string]string{
		"enclave=/;": "/", "enclave=/secure/a;": "/secure/a", "": "/", "enclave=;": "/", "x=1;enclave=/e": "/e",
	} {
		if got := ParseEnclave([]byte(ud)); got != want {
			t.Errorf("ParseEnclave(%q) = %q, want %q", ud, got, want)
		}
	}
}
