package search

import (
	"slices"
	"strings"
	"testing"
)

func TestTokens_Split(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"HTTPServerConfig", []string{"http", "server", "config"}},
		{"parseJSON", []string{"parse", "json"}},
		{"parseJSONToken", []string{"parse", "json", "token"}},
		{"getURLForID", []string{"get", "url", "for", "id"}},
		{"parse_json_token", []string{"parse", "json", "token"}},
		{"__init__", []string{"init"}},
		{"_private_name_", []string{"private", "name"}},
		{"SCREAMING_SNAKE_CASE", []string{"screaming", "snake", "case"}},
		{"kebab-case-name", []string{"kebab", "case", "name"}},
		{"pkg.Type.method", []string{"pkg", "type", "method"}},
		{"src/core/server.py", []string{"src", "core", "server", "py"}},
		{"x.go::Char.splice", []string{"x", "go", "char", "splice"}},
		{"code:function:a/b.go::Run", []string{"code", "function", "a", "b", "go", "run"}},
		{"docs/a.md#uid-scheme:2", []string{"docs", "a", "md", "uid", "scheme", "2"}},
		{"utf8Decode", []string{"utf8", "decode"}},
		{"base64URLEncoding", []string{"base64", "url", "encoding"}},
		{"v2Config", []string{"v2", "config"}},
		{"HTTP2Server", []string{"http2", "server"}},
		{"A", []string{"a"}},
		{"  spaced   words ", []string{"spaced", "words"}},
		{"_", nil},
		{"___---...", nil},
		{"", nil},
		{"ПарсерКонфигурации", []string{"парсер", "конфигурации"}},
		{"загрузить_файл", []string{"загрузить", "файл"}},
		{"設定を読み込む", []string{"設定", "を", "読", "み", "込", "む"}},
		{"日本語のラベル", []string{"日本語", "の", "ラベル"}},
		{"parse解析器", []string{"parse", "解析器"}},
		{"コンピューター", []string{"コンピューター"}},
		{"한국어Label", []string{"한국어", "label"}},
		{"ÉcoleNormale", []string{"école", "normale"}},
		{"bad\xffbyte", []string{"bad", "byte"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Tokens(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for _, tok := range got {
				if tok == "" || strings.Trim(tok, "_") == "" {
					t.Errorf("Tokens(%q) has a bare or empty token %q", tt.in, tok)
				}
				if strings.ToLower(tok) != tok {
					t.Errorf("Tokens(%q) token %q is not lowercased", tt.in, tok)
				}
			}
		})
	}
}

func TestTokenizer_Offsets(t *testing.T) {
	in := "myHTTP_Server.日本"
	stream := identifierTokenizer{}.Tokenize([]byte(in))
	want := []string{"my", "HTTP", "Server", "日本"}
	if len(stream) != len(want) {
		t.Fatalf("got %d tokens, want %d", len(stream), len(want))
	}
	for i, tok := range stream {
		if got := in[tok.Start:tok.End]; got != want[i] {
			t.Errorf("token %d spans %q, want %q", i, got, want[i])
		}
		if tok.Position != i+1 {
			t.Errorf("token %d position %d, want %d", i, tok.Position, i+1)
		}
	}
}

// FuzzTokens checks the tokenizer's invariants on any input: offsets in
// range and increasing, terms non-empty, lowercase, free of separators, and
// equal to the lowercased span they cover.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"HTTPServerConfig", "parse_json_token", "a/b.go::C.d", "日本語のラベル", "ПарсерКонфигурации", "\xff_\x00", "ǅungla"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prevEnd := 0
		for i, tok := range (identifierTokenizer{}).Tokenize([]byte(s)) {
			if tok.Start < prevEnd || tok.End <= tok.Start || tok.End > len(s) {
				t.Fatalf("token %d spans [%d,%d) after %d in %q", i, tok.Start, tok.End, prevEnd, s)
			}
			prevEnd = tok.End
			term := string(tok.Term)
			if term != strings.ToLower(s[tok.Start:tok.End]) {
				t.Fatalf("token %d term %q is not the lowercased span %q", i, term, s[tok.Start:tok.End])
			}
			for _, r := range term {
				if classify(r) == classSep {
					t.Fatalf("token %d %q holds separator %q", i, term, r)
				}
			}
			if tok.Position != i+1 {
				t.Fatalf("token %d position %d", i, tok.Position)
			}
		}
	})
}
