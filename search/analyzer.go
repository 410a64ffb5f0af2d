package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// IdentifierAnalyzer is the name under which the identifier analyzer is
// registered with bleve. It is stored in each index's mapping, so renaming it
// means bumping formatVersion.
const IdentifierAnalyzer = "cos_identifier"

func init() {
	// bleve's registry is global and rejects a second registration of a name;
	// this package owns the name, so a failure is a programming error.
	if err := registry.RegisterTokenizer(IdentifierAnalyzer, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return identifierTokenizer{}, nil
	}); err != nil {
		panic(fmt.Sprintf("search: %v", err))
	}
	if err := registry.RegisterAnalyzer(IdentifierAnalyzer, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return &analysis.DefaultAnalyzer{Tokenizer: identifierTokenizer{}}, nil
	}); err != nil {
		panic(fmt.Sprintf("search: %v", err))
	}
}

// Tokens splits s the way the index analyses labels and paths: it returns the
// lowercased words of s in order, for example
//
//	HTTPServerConfig        → http server config
//	parse_json_token        → parse json token
//	kebab-case-name         → kebab case name
//	pkg.Type.method         → pkg type method
//	src/a.go::Char.splice   → src a go char splice
//	doc.md#Some-Heading:2   → doc md some heading 2
//	日本語のラベル            → 日本語 の ラベル
//
// Separators are every rune that is neither a letter, a digit nor a combining
// mark ('_', '-', '.', '/', ':', '#', spaces, …), so no token is ever a bare
// '_' or empty. Inside a word a new token starts at a lower→upper or
// digit→upper change ("parseJSON" → parse json), before the last capital of an
// acronym followed by a lowercase letter ("HTTPServer" → http server), and
// where the script changes between Han, Hiragana, Katakana, Hangul and the
// rest. Digits stay with the letters before them ("utf8Decode" → utf8 decode).
// Letters of every script are kept and lowercased with unicode rules.
func Tokens(s string) []string {
	stream := identifierTokenizer{}.Tokenize([]byte(s))
	out := make([]string, len(stream))
	for i, t := range stream {
		out[i] = string(t.Term)
	}
	return out
}

// identifierTokenizer implements analysis.Tokenizer; see Tokens for the rules.
type identifierTokenizer struct{}

// runeClass is what the splitter needs to know about one rune.
type runeClass uint8

const (
	classSep runeClass = iota
	classUpper
	classLower // lowercase letters and letters without case
	classDigit
	classMark // combining marks and the Katakana prolonged sound mark: stay with what precedes
)

// script groups runes whose words are not separated by case; a change of
// group inside a word starts a new token.
type script uint8

const (
	scriptOther script = iota
	scriptHan
	scriptHiragana
	scriptKatakana
	scriptHangul
)

func classify(r rune) runeClass {
	switch {
	case r == 'ー' || unicode.IsMark(r):
		return classMark
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return classUpper
	case unicode.IsLetter(r):
		return classLower
	case unicode.IsDigit(r) || unicode.IsNumber(r):
		return classDigit
	}
	return classSep
}

func scriptOf(r rune) script {
	switch {
	case unicode.Is(unicode.Han, r):
		return scriptHan
	case unicode.Is(unicode.Hiragana, r):
		return scriptHiragana
	case unicode.Is(unicode.Katakana, r):
		return scriptKatakana
	case unicode.Is(unicode.Hangul, r):
		return scriptHangul
	}
	return scriptOther
}

// Tokenize implements analysis.Tokenizer. Start and End are byte offsets into
// input; Term is the lowercased word.
func (identifierTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var (
		stream   analysis.TokenStream
		start    = -1 // byte offset of the open token, -1 when none
		prev     runeClass
		prevScr  script
		position = 1
	)
	emit := func(end int) {
		if start < 0 || end <= start {
			start = -1
			return
		}
		stream = append(stream, &analysis.Token{
			Start:    start,
			End:      end,
			Term:     []byte(strings.ToLower(string(input[start:end]))),
			Position: position,
			Type:     analysis.AlphaNumeric,
		})
		position++
		start = -1
	}
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		c := classify(r)
		if r == utf8.RuneError && size <= 1 {
			c = classSep
		}
		if c == classSep {
			emit(i)
			prev = classSep
			i += size
			continue
		}
		scr := prevScr
		if c != classMark {
			scr = scriptOf(r)
		}
		if start >= 0 && c != classMark {
			split := false
			switch {
			case scr != prevScr:
				split = true
			case c == classUpper && (prev == classLower || prev == classDigit):
				split = true
			case c == classUpper && prev == classUpper:
				// "HTTPServer": split before 'S' because the rune after it is lowercase.
				if next, _ := utf8.DecodeRune(input[i+size:]); i+size < len(input) && classify(next) == classLower {
					split = true
				}
			}
			if split {
				emit(i)
			}
		}
		if start < 0 {
			start = i
		}
		if c != classMark {
			prev = c
		}
		prevScr = scr
		i += size
	}
	emit(len(input))
	return stream
}

var _ analysis.Tokenizer = identifierTokenizer{}
