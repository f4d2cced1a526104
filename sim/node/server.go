package node

import (
	"net"
	"net/http"
	"time"

	"k8s.io/utils/clock"
)

// Server answers an operand's health endpoints on a loopback port, for
// probes from outside the process (a startup-monitor binary).
type Server struct {
	// URL is the server's base, "http://127.0.0.1:<port>".
	URL string
	srv *http.Server
}

// Serve starts a server that answers each request from state at clk's time
// when the request arrives (Operand.State, or a function choosing the
// revision the kubelet runs). While the state does not listen, requests get
// their connection reset: closing the port would free it for someone else,
// and a prober treats both as "not answering".
func Serve(clk clock.PassiveClock, state func(time.Time) State) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := state(clk.Now())
		if !st.Listening {
			reset(w)
			return
		}
		code, body := st.Respond(r.URL.Path, r.URL.Query())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(code)
		w.Write([]byte(body))
	})}
	// One request per connection, so that a connection opened while the
	// process listened is not used after it stopped.
	srv.SetKeepAlivesEnabled(false)
	go srv.Serve(ln)
	return &Server{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// reset drops the request's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// Close stops the server.
func (s *Server) Close() error {
	return s.srv.Close()
}
