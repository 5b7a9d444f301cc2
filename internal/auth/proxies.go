package auth

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies lists the reverse proxies whose X-Forwarded-For is believed.
// The zero value trusts none: the client is the immediate peer.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of IP addresses and CIDR
// prefixes, e.g. "127.0.0.1, 10.0.0.0/8, ::1". Spaces and empty items are
// ignored; an empty list trusts no proxy.
func ParseProxies(s string) (Proxies, error) {
	var p Proxies
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			pre, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix such as 10.0.0.0/8", item)
			}
			p = append(p, pre.Masked())
			continue
		}
		ip, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix such as 10.0.0.0/8", item)
		}
		ip = ip.Unmap()
		p = append(p, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return p, nil
}

// trusted reports whether ip is one of the proxies.
func (p Proxies) trusted(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, pre := range p {
		if pre.Contains(ip) {
			return true
		}
	}
	return false
}

// Client names the sender of r for the limit of wrong tokens and the logs:
// its IP address. When the immediate peer (r.RemoteAddr) is a trusted
// proxy, it is the right-most address of X-Forwarded-For that is not
// itself a trusted proxy (every proxy appends the address it got the
// request from, so what lies left of the first untrusted one may be made
// up by the client); an entry that is no IP address stops the walk, and
// the address right of it is used. Otherwise X-Forwarded-For is ignored.
func (p Proxies) Client(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(p) == 0 || !p.trusted(peer) {
		return host
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer.Unmap()
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		client = ip.Unmap()
		if !p.trusted(client) {
			break
		}
	}
	return client.String()
}
