package clusteroperator

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/opcert/opcert/payload"
	"github.com/opcert/opcert/reference/component"
)

// The release payload a scenario's version operator sweeps, written for
// each version it is asked for: per component, in the scenario's order
// (the run level 10, 11, ...), its namespaces, its operator's Deployment
// and its ClusterOperator, the way operators ship their /manifests (001
// §How should I include ClusterOperator Custom Resource in /manifests). A
// component with Trap set has its ClusterOperator manifest sorted before
// its operator's Deployment: 001's NOTE.

// The world's keys: reference/component's (its adapter is the operator the
// world runs), which the rules read too, written in their own package.
const (
	// versionLabel is the version a pod runs, and that an operand's or the
	// operator's pod template asks for.
	versionLabel = component.VersionLabel
	// blockerKey is the key of the admin's ConfigMap that says what must
	// be fixed before an upgrade.
	blockerKey = component.BlockerKey
)

// operatorNamespace is where a component's operator runs; its operands run
// in the namespace of the component's name.
func operatorNamespace(component string) string { return component + "-operator" }

// operatorDeployment names a component's operator Deployment.
func operatorDeployment(component string) string { return component + "-operator" }

// adminConfigMap names the ConfigMap of a component's admin blocker.
func adminConfigMap(component string) string { return component + "-admin" }

// releasePayload is the payload of version v for the scenario's world.
func releasePayload(w *World, v string) (*payload.Payload, error) {
	files := fstest.MapFS{}
	for i, c := range w.Components {
		prefix := fmt.Sprintf("0000_%02d_%s_", 10+i, c.Name)
		files[prefix+"00_namespaces.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, namespacesYAML, operatorNamespace(c.Name), c.Name)}
		files[prefix+"03_deployment.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, deploymentYAML,
			operatorDeployment(c.Name), operatorNamespace(c.Name), versionLabel, v, c.Name, v)}
		co := prefix + "07_clusteroperator.yaml"
		if c.Trap {
			co = prefix + "02_clusteroperator.yaml"
		}
		files[co] = &fstest.MapFile{Data: fmt.Appendf(nil, clusterOperatorYAML, c.Name, v)}
	}
	p, err := payload.ReadFS(context.Background(), files)
	if err != nil {
		return nil, err
	}
	if len(p.Problems) > 0 {
		return nil, fmt.Errorf("the payload of %s does not read: %s", v, p.Problems[0])
	}
	return p, nil
}

const namespacesYAML = `apiVersion: v1
kind: Namespace
metadata:
  name: %s
---
apiVersion: v1
kind: Namespace
metadata:
  name: %s
`

const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  replicas: 1
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
        %[3]s: %[4]q
    spec:
      containers:
      - name: operator
        image: example.com/%[5]s-operator:%[6]s
`

const clusterOperatorYAML = `apiVersion: config.openshift.io/v1
kind: ClusterOperator
metadata:
  name: %s
spec: {}
status:
  versions:
  - name: operator
    version: %q
`
