// Package lint checks a release payload's manifest directory against seed
// 001's ClusterOperator contract before anything runs: what the
// cluster-version operator will read of it (001 §How ClusterVersionOperator
// handles ClusterOperator in release image), what a ClusterOperator
// manifest must hold (001 §What should be the contents of ClusterOperator
// Custom Resource in /manifests, §Version), and the ordering trap, a
// ClusterOperator manifest swept before the Deployment of the operator that
// reports it, at which the version operator waits forever.
//
// Lint is pure over a payload.Payload (read by package payload, which says
// how files are swept and how a ClusterOperator's operator is found). The
// package registers the linter "manifests" from init, for
// "opcert lint manifests DIR". Checks lists every check with its stable ID
// (LINT-001...), severity and section.
//
// Readings where the seed is silent:
//
//   - Errors are what leaves the version operator unable to load the
//     payload or waiting forever, or a ClusterOperator manifest without
//     what the seed says must be set (its name, an operator version);
//     warnings are what is likely a slip but breaks nothing by itself
//     (a file never applied, conditions the version operator does not
//     read, an operator the lint cannot find).
//   - The version is not compared with the placeholder "0.0.1-snapshot":
//     a built payload holds the release's version instead.
//   - A ClusterOperator manifest whose operator the lint cannot find is a
//     warning (LINT-009), since that operator may be deployed by other
//     means; one whose opcert.io/reported-by names a Deployment the payload
//     lacks is an error (LINT-008).
//   - image-references and release-metadata are part of a payload, not
//     stray files: they are not reported.
package lint
