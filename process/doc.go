// Package process runs the executables that play roles in real time
// (process mode: a team's operator binary against opcert's API server).
// Each runs in its own process group, so that a kill takes its children
// too and nothing outlives opcert; with its own kubeconfig, whose server is
// a loopback proxy in front of the API server, so that a hang step can cut
// it off while it lives on; and with its standard output and error kept in
// a file.
package process
