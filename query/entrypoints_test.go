package query

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// entryGraph applies one graph.file_extracted event per payload.
func entryGraph(t *testing.T, files ...graph.FileExtracted) *projections.Graph {
	t.Helper()
	g := projections.NewGraph()
	for i, f := range files {
		f.Extractor = "go"
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Apply(eventlog.Event{Seq: uint64(i + 1), Stream: graph.Stream, Revision: uint64(i + 1), Type: graph.TypeFileExtracted, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// entryFile is the payload of a file declaring the entry points es, each
// handled by the handlers listed beside it.
func entryFile(p string, fileMeta map[string]any, es []graph.Node, handled map[string][]graph.Edge) graph.FileExtracted {
	f := graph.FileExtracted{Path: p, Nodes: []graph.Node{{UID: graph.SourceFileUID(p), Kind: graph.KindFile, Label: p, Path: p, Metadata: fileMeta}}}
	for _, n := range es {
		n.Kind, n.Path = graph.KindEntrypoint, p
		f.Nodes = append(f.Nodes, n)
		f.Edges = append(f.Edges, graph.Edge{Source: graph.SourceFileUID(p), Target: n.UID, Type: graph.EdgeContains})
		f.Edges = append(f.Edges, handled[n.UID]...)
	}
	return f
}

func TestListEntrypoints_FilterSortAndHandlers(t *testing.T) {
	getUser := graph.EntryUID(graph.EntryHTTP, "srv/routes.go", "GET /users/{id}")
	upload := graph.EntryUID(graph.EntryHTTP, "srv/routes.go", "POST /upload")
	greeter := graph.EntryUID(graph.EntryGRPC, "srv/grpc.go", "helloworld.Greeter")
	mainUID := graph.EntryUID(graph.EntryMain, "cmd/app/main.go", "main")
	routes := entryFile("srv/routes.go", map[string]any{"language": "go", graph.MetaExtraction: graph.ExtractionTypes}, []graph.Node{
		{UID: upload, Label: "POST /upload", Line: 30, Metadata: map[string]any{"entry_kind": "http", "method": "POST", "route": "/upload", "framework": "chi"}},
		{UID: getUser, Label: "GET /users/{id}", Line: 12, Metadata: map[string]any{"entry_kind": "http", "method": "GET", "route": "/users/{id}", "framework": "chi"}},
	}, map[string][]graph.Edge{
		getUser: {{Source: getUser, Target: "code:function:srv/users.go::getUser", Type: graph.EdgeHandledBy}},
		upload:  {{Source: upload, Target: "code:function:srv/routes.go::Routes", Type: graph.EdgeHandledBy, Metadata: map[string]any{"anonymous": true}}},
	})
	grpcFile := entryFile("srv/grpc.go", map[string]any{"language": "go", graph.MetaExtraction: graph.ExtractionTypes}, []graph.Node{
		{UID: greeter, Label: "helloworld.Greeter", Line: 9, Metadata: map[string]any{"entry_kind": "grpc", "service": "helloworld.Greeter", "framework": "grpc"}},
	}, map[string][]graph.Edge{greeter: {
		{Source: greeter, Target: "code:function:srv/grpc.go::greeter.SayHello", Type: graph.EdgeHandledBy},
		{Source: greeter, Target: "code:function:srv/grpc.go::greeter.SayBye", Type: graph.EdgeHandledBy},
	}})
	mainFile := entryFile("cmd/app/main.go", map[string]any{"language": "go", graph.MetaExtraction: graph.ExtractionTypes}, []graph.Node{
		{UID: mainUID, Label: "main", Line: 8, Metadata: map[string]any{"entry_kind": "main", "framework": "go"}},
	}, map[string][]graph.Edge{mainUID: {{Source: mainUID, Target: "code:function:cmd/app/main.go::main", Type: graph.EdgeHandledBy}}})
	g := entryGraph(t, routes, grpcFile, mainFile)

	all := ListEntrypoints(g, EntrypointFilter{})
	want := []Entrypoint{
		{UID: mainUID, Kind: "main", Name: "main", Handler: "code:function:cmd/app/main.go::main", File: "cmd/app/main.go", Line: 8, Framework: "go"},
		{UID: greeter, Kind: "grpc", Name: "helloworld.Greeter", Handler: "code:function:srv/grpc.go::greeter.SayBye",
			Handlers: []string{"code:function:srv/grpc.go::greeter.SayBye", "code:function:srv/grpc.go::greeter.SayHello"}, File: "srv/grpc.go", Line: 9, Framework: "grpc"},
		{UID: getUser, Kind: "http", Method: "GET", Name: "/users/{id}", Handler: "code:function:srv/users.go::getUser", File: "srv/routes.go", Line: 12, Framework: "chi"},
		{UID: upload, Kind: "http", Method: "POST", Name: "/upload", Handler: "code:function:srv/routes.go::Routes", Anonymous: true, File: "srv/routes.go", Line: 30, Framework: "chi"},
	}
	if !reflect.DeepEqual(all.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", all.Rows, want)
	}
	if wantKinds := map[string]int{"main": 1, "grpc": 1, "http": 2}; !reflect.DeepEqual(all.ByKind, wantKinds) {
		t.Errorf("by kind = %v, want %v", all.ByKind, wantKinds)
	}
	if all.Completeness != CompleteExact || all.Reasons != nil {
		t.Errorf("completeness = %s %v, want exact", all.Completeness, all.Reasons)
	}

	for _, tc := range []struct {
		f    EntrypointFilter
		want []string
	}{
		{EntrypointFilter{Kinds: []string{"http"}}, []string{getUser, upload}},
		{EntrypointFilter{Path: "srv"}, []string{greeter, getUser, upload}},
		{EntrypointFilter{Path: "srv/routes.go"}, []string{getUser, upload}},
		{EntrypointFilter{Path: "./srv/routes.go"}, []string{getUser, upload}},
		{EntrypointFilter{Path: "sr"}, nil},
		{EntrypointFilter{Path: "cmd/*"}, []string{mainUID}},
		{EntrypointFilter{Path: "srv/*.go", Kinds: []string{"grpc", "main"}}, []string{greeter}},
	} {
		var got []string
		for _, r := range ListEntrypoints(g, tc.f).Rows {
			got = append(got, r.UID)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.f, got, tc.want)
		}
	}
}

// TestListEntrypoints_SyntaxFallbackIsLowerBound: a Go file read without
// types has only its main and init found, so the list is a lower bound.
func TestListEntrypoints_SyntaxFallbackIsLowerBound(t *testing.T) {
	broken := graph.FileExtracted{Path: "srv/broken.go", Nodes: []graph.Node{{UID: graph.SourceFileUID("srv/broken.go"), Kind: graph.KindFile, Label: "broken.go", Path: "srv/broken.go",
		Metadata: map[string]any{"language": "go", graph.MetaExtraction: graph.ExtractionSyntax, graph.MetaFallback: graph.FallbackTypeError}}}}
	got := ListEntrypoints(entryGraph(t, broken), EntrypointFilter{})
	if len(got.Rows) != 0 || got.Completeness != CompleteLowerBound || got.Reasons[reasonSyntaxFallbackFiles] != 1 {
		t.Errorf("got %+v, want no rows, lower_bound with syntax_fallback_files 1", got)
	}
}
