package embed

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestUnreachable(t *testing.T) {
	t.Parallel()
	dial := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: err}}
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", dial(syscall.ECONNREFUSED), true},
		{"no route to host", dial(syscall.EHOSTUNREACH), true},
		{"network unreachable", dial(syscall.ENETUNREACH), true},
		{"no such host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "gpu-box", IsNotFound: true}}, true},
		{"no such host, bare", fmt.Errorf("lookup: %w", &net.DNSError{Err: "no such host", Name: "gpu-box", IsNotFound: true}), true},
		{"proxy refused", &net.OpError{Op: "proxyconnect", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"reset while reading the answer", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false},
		{"a request timeout", errors.New("context deadline exceeded (Client.Timeout exceeded while awaiting headers)"), false},
	} {
		if got := unreachable(c.err); got != c.want {
			t.Errorf("%s: unreachable = %v, want %v", c.name, got, c.want)
		}
	}
}
