package process

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Proxy stands between one process and the API server. It serves HTTPS on
// a loopback port with a certificate of its own CA (made in memory, its
// key never written) and forwards each request to the API server as the
// process's user: it terminates TLS so that it can see each request (which
// writes succeed, which responses are watch streams), and it forwards with
// the user's own client certificate so that the API server still
// authenticates, and audits, the process. Only a client presenting that
// same certificate is served: the proxy lends no rights to anyone else on
// the machine.
//
// Cut closes every connection and refuses new ones, as a network
// partition does to the process behind it; Restore lets them through
// again. CrashAfter and LoseEvents perturb what the process achieves and
// sees (crash.go, events.go).
type Proxy struct {
	ln       net.Listener
	srv      *http.Server
	rp       *httputil.ReverseProxy
	upstream http.RoundTripper
	target   *url.URL
	user     *rest.Config
	client   []byte // the DER of the user's certificate, the one a client must present
	caPEM    []byte

	// writes makes the writes go one at a time while a crash is armed,
	// so that none is in flight beside the one that fires it.
	writes sync.Mutex

	mu      sync.Mutex
	cut     bool
	conns   map[*conn]struct{}
	crash   *crashPlan
	lose    bool
	streams map[*stream]struct{}
	lost    map[string]uint64 // by collection path: the newest resourceVersion dropped
}

// quiet discards what the HTTP server and the forwarding would log: a
// refused handshake or a cut connection is the proxy doing its job.
var quiet = log.New(io.Discard, "", 0)

// NewProxy listens on a free loopback port and forwards to user.Host as
// user, whose client certificate (CertData, KeyData) identifies it.
func NewProxy(user *rest.Config) (*Proxy, error) {
	target, err := url.Parse(user.Host)
	if err != nil {
		return nil, fmt.Errorf("the API server's address: %w", err)
	}
	upstream, err := rest.TransportFor(user)
	if err != nil {
		return nil, err
	}
	caPEM, cert, err := servingCert()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, upstream: upstream, target: target, user: user, caPEM: caPEM,
		conns: map[*conn]struct{}{}, streams: map[*stream]struct{}{}, lost: map[string]uint64{}}
	if b, _ := pem.Decode(user.CertData); b != nil {
		p.client = b.Bytes
	}
	p.rp = &httputil.ReverseProxy{Rewrite: p.rewrite, Transport: upstream, ModifyResponse: p.modifyResponse,
		FlushInterval: -1, // watch events go out as they come
		ErrorHandler:  func(http.ResponseWriter, *http.Request, error) { panic(http.ErrAbortHandler) },
		ErrorLog:      quiet}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.handle), ErrorLog: quiet, ReadHeaderTimeout: time.Minute,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
			ClientAuth: tls.RequireAnyClientCert, VerifyPeerCertificate: p.verifyClient}}
	go func() { _ = p.srv.ServeTLS(listener{ln, p}, "", "") }()
	return p, nil
}

// verifyClient accepts the user's own certificate only.
func (p *Proxy) verifyClient(raw [][]byte, _ [][]*x509.Certificate) error {
	if len(raw) == 0 || p.client == nil || !bytes.Equal(raw[0], p.client) {
		return errors.New("not the certificate of the proxy's user")
	}
	return nil
}

// Addr is the host:port processes connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Kubeconfig is a kubeconfig for the process behind the proxy: its server
// the proxy, trusted by the proxy's CA, and the user's client certificate
// and key (named user in it).
func (p *Proxy) Kubeconfig(user string) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["opcert"] = &clientcmdapi.Cluster{Server: "https://" + p.Addr(), CertificateAuthorityData: p.caPEM}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: p.user.CertData, ClientKeyData: p.user.KeyData}
	kc.Contexts["opcert"] = &clientcmdapi.Context{Cluster: "opcert", AuthInfo: user}
	kc.CurrentContext = "opcert"
	return clientcmd.Write(*kc)
}

// Cut drops every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutLocked()
}

func (p *Proxy) cutLocked() {
	p.cut = true
	for c := range p.conns {
		c.Conn.Close() // the server's own Close follows, and forgets it
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

func (p *Proxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// Close stops listening and drops every connection.
func (p *Proxy) Close() error {
	p.Cut()
	err := p.srv.Close()
	utilnet.CloseIdleConnectionsFor(p.upstream)
	return err
}

// handle forwards one request, unless the proxy is cut: then the
// connection is dropped, as the partition would have dropped it.
func (p *Proxy) handle(w http.ResponseWriter, r *http.Request) {
	if p.isCut() {
		panic(http.ErrAbortHandler)
	}
	switch {
	case isWatch(r):
		p.serveWatch(w, r)
	case counted(r) && p.armed():
		p.writes.Lock()
		defer p.writes.Unlock()
		if p.isCut() { // the write before this one fired the crash
			panic(http.ErrAbortHandler)
		}
		p.rp.ServeHTTP(w, r)
	default:
		p.rp.ServeHTTP(w, r)
	}
}

// rewrite sends the request to the API server; a watch asks for JSON,
// uncompressed, so that its events can be read (events.go).
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.target)
	if isWatch(pr.In) {
		asJSON(pr.Out)
	}
}

func (p *Proxy) modifyResponse(res *http.Response) error {
	if counted(res.Request) && res.StatusCode/100 == 2 {
		p.wrote()
	}
	if s, ok := res.Request.Context().Value(streamKey{}).(*stream); ok {
		p.filter(s, res)
	}
	return nil
}

// listener refuses the connections that come while the proxy is cut and
// keeps the others, so that a cut can close them.
type listener struct {
	net.Listener
	p *Proxy
}

func (l listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.p.mu.Lock()
		if !l.p.cut {
			tc := &conn{Conn: c, p: l.p}
			l.p.conns[tc] = struct{}{}
			l.p.mu.Unlock()
			return tc, nil
		}
		l.p.mu.Unlock()
		c.Close() // cut off: refused at once
	}
}

// conn is a connection the proxy keeps until it closes.
type conn struct {
	net.Conn
	p *Proxy
}

func (c *conn) Close() error {
	c.p.mu.Lock()
	delete(c.p.conns, c)
	c.p.mu.Unlock()
	return c.Conn.Close()
}
