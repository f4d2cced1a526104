// Package process runs the executables that play roles in real time
// (process mode: a team's operator binary against opcert's API server).
// Each runs in its own process group, so that a kill takes its children
// too and nothing outlives opcert; with its own kubeconfig, whose server is
// a loopback proxy in front of the API server; and with its standard
// output and error kept in a file.
//
// The proxy (Proxy) terminates the process's TLS, with a certificate of a
// CA it makes in memory (the kubeconfig trusts that CA, not the API
// server's), and forwards each request as the process's own user, with
// that user's client certificate: the API server authenticates and audits
// the process as it would if it were connected directly, which process
// mode's attribution of writes rests on, and only a client with that
// certificate is served. Seeing each request is what lets the proxy
// perturb the process as Sieve does a controller: cut it off (a hang step:
// the process lives on, the API server out of reach), cut it off right
// after its k-th write so that it can be crashed between two writes of a
// reconcile (CrashAfter), and drop the watch events streamed to it, then
// make its informers list again so that they see the state as it is and
// never the states in between (LoseEvents).
package process
