// Package indextest generates text for the recall index's benchmarks:
// words of the kind facts and tasks use, so that the embedder's table and
// the analyser see realistic text.
package indextest

import (
	"math/rand/v2"
	"strings"
)

// Vocabulary is the words generated texts are made of.
var Vocabulary = strings.Fields(`the a of to and in for on with is are be not must never always when after before
database postgres index cache log file write read lock queue worker request response client server api
test tests flaky integration unit build deploy release migration schema table column row key value
error timeout retry latency memory disk network port process thread goroutine channel mutex
config flag option default user team review proposal fact task issue bug fix feature refactor
slow fast large small first last new old open closed blocked ready priority label owner
compaction fsync rename windows linux macos docker kubernetes metrics trace span alert page
payment invoice order customer account session token auth password secret login email
parser lexer compiler runtime allocation benchmark profile regression rollback backup restore`)

// Words is a document's words: 8 to 37 of Vocabulary, drawn from rng.
func Words(rng *rand.Rand) []string {
	words := make([]string, 8+rng.IntN(30))
	for j := range words {
		words[j] = Vocabulary[rng.IntN(len(Vocabulary))]
	}
	return words
}
