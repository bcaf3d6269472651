// Package gitleakscheck holds what needs gitleaks itself: the generator of
// memctl's rule table (./gen, run by go generate ./internal/secrets) and
// the tests that hold internal/secrets to gitleaks' own detector (the
// differential test, its fuzz target, the staleness check of the table,
// and benchmarks of gitleaks for comparison).
//
// It is a module of its own so that gitleaks and its dependency graph
// (viper, archivers, file-type sniffers…) stay out of memctl's go.mod; its
// go.mod is where the gitleaks version is chosen, and it builds against
// the memctl module in this tree (a replace of github.com/memctl/memctl
// to ../../..). Run its tests with go test -C internal/secrets/gitleakscheck
// ./... (make test does).
package gitleakscheck
