package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/cluster"
)

// opcert kind up|down: a kind cluster for nightly CI (examples/kind-nightly),
// through the sigs.k8s.io/kind library. Without a container runtime whose
// engine answers, both exit 2 saying so and what to install.

func newKind() *cobra.Command {
	o := cluster.KindOptions{}
	cmd := &cobra.Command{
		Use:   "kind",
		Short: "Create or delete a kind cluster to run opcert on (nightly CI)",
		Long: `Create or delete a kind cluster (Kubernetes in containers) for cluster mode.

'opcert kind up' creates the cluster (or reuses it), waits for its control
plane, loads the --image images into its nodes and installs opcert's CRDs
(the ClusterOperator's); then deploy your operator and run
'opcert run --kubeconfig FILE --subject operator=deployment:NS/NAME
--allow-disruption'. 'opcert kind down' deletes it.

kind needs a container runtime with a running engine: Docker, Podman or
nerdctl. Without one, both exit 2 and say what to install.`,
		Example: `  opcert kind up --name opcert --kubeconfig kind.kubeconfig --image example.com/my-operator:ci
  opcert kind down --name opcert --kubeconfig kind.kubeconfig`,
	}
	f := cmd.PersistentFlags()
	f.StringVar(&o.Name, "name", "opcert", "the kind cluster's name")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "the kubeconfig file to write the cluster's access to (default: kind's, $KUBECONFIG or ~/.kube/config)")
	up := &cobra.Command{
		Use:   "up",
		Short: "Create the cluster (or reuse it), load the images, install opcert's CRDs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cluster.Up(cmd.Context(), o)
		},
	}
	up.Flags().StringArrayVar(&o.Images, "image", nil, "an image on this machine to load into the cluster's nodes (repeatable)")
	up.Flags().StringVar(&o.NodeImage, "node-image", os.Getenv("OPCERT_KIND_NODE_IMAGE"), "kind's node image (default: $OPCERT_KIND_NODE_IMAGE, else kind's for its Kubernetes version)")
	up.Flags().BoolVar(&o.Retain, "retain", false, "keep the nodes if the creation fails, to read their logs (docker exec NODE journalctl)")
	up.Flags().StringVar(&o.Config, "config", os.Getenv("OPCERT_KIND_CONFIG"), "kind's cluster configuration file (default: $OPCERT_KIND_CONFIG, else kind's one node)")
	down := &cobra.Command{
		Use:   "down",
		Short: "Delete the cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cluster.Down(cmd.Context(), o)
		},
	}
	cmd.AddCommand(up, down)
	return cmd
}
