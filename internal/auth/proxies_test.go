package auth

import (
	"net/http/httptest"
	"testing"
)

func TestParseProxies(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      bool
	}{
		{"", "[]", false},
		{" , ", "[]", false},
		{"10.0.0.1", "[10.0.0.1/32]", false},
		{"10.0.0.1, 192.168.0.0/16,::1", "[10.0.0.1/32 192.168.0.0/16 ::1/128]", false},
		{"10.1.2.3/8", "[10.0.0.0/8]", false},
		{"::ffff:10.0.0.1", "[10.0.0.1/32]", false},
		{"proxy.local", "", true},
		{"10.0.0.0/33", "", true},
		{"10.0.0.1:80", "", true},
	} {
		p, err := ParseProxies(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseProxies(%q): got error %v, want error %v", c.in, err, c.err)
			continue
		}
		if got := fmtPrefixes(p); !c.err && got != c.want {
			t.Errorf("ParseProxies(%q): got %s, want %s", c.in, got, c.want)
		}
	}
}

func fmtPrefixes(p Proxies) string {
	s := "["
	for i, pre := range p {
		if i > 0 {
			s += " "
		}
		s += pre.String()
	}
	return s + "]"
}

func TestClient(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.1, 10.9.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		proxies Proxies
		remote  string
		xff     []string
		want    string
	}{
		{"no proxy", nil, "192.0.2.1:4567", nil, "192.0.2.1"},
		{"IPv6 peer", nil, "[2001:db8::1]:80", nil, "2001:db8::1"},
		{"no proxy, a forged header", nil, "192.0.2.1:4567", []string{"203.0.113.9"}, "192.0.2.1"},
		{"an untrusted peer's header is ignored", proxies, "192.0.2.1:4567", []string{"203.0.113.9"}, "192.0.2.1"},
		{"the trusted proxy's header", proxies, "10.0.0.1:4567", []string{"203.0.113.9"}, "203.0.113.9"},
		{"the right-most untrusted hop", proxies, "10.0.0.1:4567", []string{"6.6.6.6, 203.0.113.9"}, "203.0.113.9"},
		{"trusted hops are skipped", proxies, "10.0.0.1:4567", []string{"6.6.6.6, 203.0.113.9, 10.9.3.4"}, "203.0.113.9"},
		{"several header lines", proxies, "10.0.0.1:4567", []string{"6.6.6.6", "203.0.113.9"}, "203.0.113.9"},
		{"all hops trusted", proxies, "10.0.0.1:4567", []string{"10.9.0.7"}, "10.9.0.7"},
		{"no header from the proxy", proxies, "10.0.0.1:4567", nil, "10.0.0.1"},
		{"garbage stops the walk", proxies, "10.0.0.1:4567", []string{"6.6.6.6, nonsense, 10.9.3.4"}, "10.9.3.4"},
		{"a mapped IPv4 peer", proxies, "[::ffff:10.0.0.1]:4567", []string{"203.0.113.9"}, "203.0.113.9"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := c.proxies.Client(r); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
