package rules

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The conventions of 001 §Conditions on how a message reads. Each judges
// every non-empty message the operator sets (a condition added, or its
// message changed): one left alone was judged when set, and an empty one
// says nothing to judge here (CO-024 and CO-025 judge where a message is
// owed). They are Style rules: warnings unless the judging is strict.

// messages judges every non-empty message an operator's write sets by
// the conventions on how it reads.
func (g *coJudging) messages(e timeline.Event) {
	for _, ch := range e.Conditions {
		a := ch.After
		if a == nil || strings.TrimSpace(a.Message) == "" || (ch.Before != nil && ch.Before.Message == a.Message) {
			continue
		}
		what := fmt.Sprintf("%s %s at %s", e.Object, ch.Type, g.off(e.Time))
		g.capital.Judged++
		capitalized(&g.capital, e, what, a.Message)
		switch ch.Type {
		case condProgressing:
			g.terse.Judged++
			terse(&g.terse, e, what, a.Message)
		case condAvailable:
			g.sentence.Judged++
			oneSentence(&g.sentence, e, what, a.Message)
		}
	}
}

// CO-021: "All messages should start with a capital letter (like a
// sentence)". Leading space is passed over; a message whose first
// character is a lower-case letter fails, and one that starts with a
// digit, a sign or a letter without case ("3 of 5 nodes", "/readyz") is
// not held against it: a sentence may start so.
func (c Config) capitalized(j *judge.Judging) judge.Verdict {
	return c.verdict(r021)(j)
}

func capitalized(f *judge.Findings, e timeline.Event, what, msg string) {
	if r, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(msg, unicode.IsSpace)); unicode.IsLower(r) {
		f.Fail(fmt.Sprintf("%s: message %s starts with %q, not a capital letter", what, quote(msg), r), e)
	}
}

// CO-022: "`Progressing` ... should be a terse, human-readable message
// describing the current state of the object in 5-10 words (the more
// succinct the better)". Words are what white space separates
// ("Unable to apply 4.0.1: a required object is missing" is 9). Only the
// upper bound is judged (doc.go, Readings).
func (c Config) terseProgressing(j *judge.Judging) judge.Verdict {
	return c.verdict(r022)(j)
}

func terse(f *judge.Findings, e timeline.Event, what, msg string) {
	if n := len(strings.Fields(msg)); n > maxProgressingWords {
		f.Fail(fmt.Sprintf("%s: %s, over %d", what, wordsOf(msg, n), maxProgressingWords), e)
	}
}

// CO-023: "`Available` should ... be a single sentence without
// punctuation". The seed's own example, "Cluster has deployed 4.0.0",
// holds the dots of a version, so what is judged is the end of a sentence:
// none at the message's end ('.', '!' or '?'), and none inside it followed
// by a word that does not go on in lower case.
func (c Config) oneSentenceAvailable(j *judge.Judging) judge.Verdict {
	return c.verdict(r023)(j)
}

func oneSentence(f *judge.Findings, e timeline.Event, what, msg string) {
	trimmed := strings.TrimRightFunc(msg, unicode.IsSpace)
	last, _ := utf8.DecodeLastRuneInString(trimmed)
	switch {
	case strings.ContainsRune(sentenceEnds, last):
		f.Fail(fmt.Sprintf("%s: message %s ends with %q: a single sentence without punctuation", what, quote(msg), last), e)
	case sentenceBreak.MatchString(trimmed):
		f.Fail(fmt.Sprintf("%s: message %s holds more than one sentence", what, quote(msg)), e)
	}
}

// maxQuoted is the most runes of a message a verdict quotes: enough to
// recognise it; the evidence has it whole.
const maxQuoted = 80

// quote is a message as a verdict quotes it, cut to maxQuoted runes.
func quote(msg string) string {
	if utf8.RuneCountInString(msg) > maxQuoted {
		msg = strings.TrimRightFunc(string([]rune(msg)[:maxQuoted]), unicode.IsSpace) + "..."
	}
	return fmt.Sprintf("%q", msg)
}

// wordsOf says how many words a message has, quoting it.
func wordsOf(msg string, n int) string {
	switch n {
	case 0:
		return "no message"
	case 1:
		return fmt.Sprintf("message %s has 1 word", quote(msg))
	}
	return fmt.Sprintf("message %s has %d words", quote(msg), n)
}
