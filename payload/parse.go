package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// document is one document of a file, before it is read: its text and the
// file's line its text starts on.
type document struct {
	text  []byte
	first int
	json  bool
}

// parseFile reads every object of one file's content (see the package doc
// for how a file is split). It never panics, whatever data holds
// (FuzzParse).
func parseFile(name string, data []byte) ([]Manifest, []Problem) {
	data = breakLoneCR(data)
	var docs []document
	var broken *Problem // where a JSON stream breaks off
	if isJSON(data) {
		docs, broken = splitJSON(data)
	} else {
		docs = splitYAML(data)
	}
	var probs []Problem
	level, component := runLevel(name)
	var out []Manifest
	for _, d := range docs {
		obj, msg, line := decode(d)
		switch {
		case msg != "":
			probs = append(probs, Problem{File: name, Line: line, Message: msg})
			continue
		case obj == nil: // empty
			continue
		}
		m := Manifest{File: name, Index: len(out), Line: line, Object: obj, RunLevel: level, Component: component,
			APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
		m.tree, m.offset = positions(d)
		if m.tree != nil {
			m.Line = m.tree.Line + m.offset
		}
		out = append(out, m)
	}
	if broken != nil { // after the objects read before it
		broken.File = name
		probs = append(probs, *broken)
	}
	return out, probs
}

// breakLoneCR turns a carriage return that no line feed follows into a
// line feed (in a copy), so that lines count as YAML and editors count
// them: a lone CR breaks a line there, not for a count of line feeds.
func breakLoneCR(data []byte) []byte {
	var out []byte
	for i, c := range data {
		if c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			if out == nil {
				out = bytes.Clone(data)
			}
			out[i] = '\n'
		}
	}
	if out == nil {
		return data
	}
	return out
}

// isJSON is the upstream reader's test: content whose first character
// (after white space) is '{' is read as JSON.
func isJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// splitYAML cuts data into documents at separator lines.
func splitYAML(data []byte) []document {
	var docs []document
	start, first, line := 0, 1, 1
	for off := 0; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		if isSeparator(data[off:next]) {
			docs = append(docs, document{text: data[start:off], first: first})
			start, first = next, line+1
		}
		off = next
	}
	return append(docs, document{text: data[start:], first: first})
}

// isSeparator says whether a line ends a document: "---" alone, or
// followed by spaces or a comment (the upstream reader's rule; "--- x"
// starts a document with content and is not split on).
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

// splitJSON cuts data into the JSON values it holds one after another. A
// syntax error ends the stream: what follows it cannot be found.
func splitJSON(data []byte) ([]document, *Problem) {
	var docs []document
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		start := int(dec.InputOffset())
		for start < len(data) && strings.IndexByte(" \t\r\n", data[start]) >= 0 {
			start++
		}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			at := start
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				at = int(syn.Offset)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				at = len(data)
			}
			return docs, &Problem{Line: lineAt(data, at), Message: "not valid JSON: " + err.Error()}
		}
		docs = append(docs, document{text: raw, first: lineAt(data, start), json: true})
	}
}

// lineAt is the line, from 1, of the byte at off.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// decode reads a document into an object: nil and no message for an
// empty one, else a message saying why it is no object. line is where the
// object starts or the problem is.
func decode(d document) (obj *unstructured.Unstructured, msg string, line int) {
	line = d.first + contentLine(d.text) - 1
	js := d.text
	if !d.json {
		var err error
		if js, err = sigsyaml.YAMLToJSON(d.text); err != nil {
			at, text := yamlError(d.text, err)
			if at > 0 {
				line = d.first + at - 1
			}
			return nil, "not valid YAML: " + text + " (check the indentation and quoting here and on the line before)", line
		}
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		return nil, "", line
	}
	var m map[string]any
	if js[0] != '{' || utiljson.Unmarshal(js, &m) != nil {
		return nil, fmt.Sprintf("the document is %s, not an object: a manifest is a mapping with apiVersion, kind and metadata", jsonKind(js)), line
	}
	return &unstructured.Unstructured{Object: m}, "", line
}

// contentLine is the line of text, from 1, of its first line that is not
// blank or a comment (1 when there is none).
func contentLine(text []byte) int {
	for i, l := range bytes.Split(text, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			return i + 1
		}
	}
	return 1
}

// yamlLine finds the line a YAML parser's message is about.
var yamlLine = regexp.MustCompile(`^(?:error converting YAML to JSON: )?(?:yaml: )?line (\d+): `)

// parserProblems are the YAML parser's own messages (the scanner's are
// the others): it numbers their lines from 0, the scanner from 1.
var parserProblems = []string{
	"did not find expected <document start>", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found undefined tag handle", "found duplicate %YAML directive",
	"found incompatible YAML document", "found duplicate %TAG directive",
}

// yamlError splits a YAML parser's error on text into the line it is
// about (counted from text's first line; 0 when it names none) and the
// rest of its message.
func yamlError(text []byte, err error) (int, string) {
	msg := err.Error()
	m := yamlLine.FindStringSubmatchIndex(msg)
	if m == nil {
		msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
		return 0, strings.TrimPrefix(msg, "yaml: ")
	}
	n, _ := strconv.Atoi(msg[m[2]:m[3]])
	msg = msg[m[1]:]
	if slices.Contains(parserProblems, msg) {
		n++
	}
	// A problem found at the end of the text (the token after the mistake)
	// is about its last line.
	return min(n, bytes.Count(bytes.TrimRight(text, " \t\r\n"), []byte("\n"))+1), msg
}

// jsonKind names what a JSON value is, for a message.
func jsonKind(js []byte) string {
	switch js[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// positions parses the document as YAML nodes for LineOf (JSON is YAML
// enough for lines). A document the node parser refuses gets none.
func positions(d document) (*yaml.Node, int) {
	var doc yaml.Node
	if yaml.Unmarshal(d.text, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, 0
	}
	return doc.Content[0], d.first - 1
}
