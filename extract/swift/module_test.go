package swift

import "testing"

// TestModuleOf checks the module of a path: the folder below the last
// Sources/ or Tests/ of a SwiftPM layout, none elsewhere.
func TestModuleOf(t *testing.T) {
	for _, c := range []struct{ p, name, dir string }{
		{"Sources/Geo/Point.swift", "Geo", "Sources/Geo"},
		{"Sources/Geo/Sub/Deep.swift", "Geo", "Sources/Geo"},
		{"pkg/Tests/GeoTests/PointTests.swift", "GeoTests", "pkg/Tests/GeoTests"},
		{"Sources/main.swift", "", ""},
		{"Source/Core/Session.swift", "", ""},
		{"main.swift", "", ""},
	} {
		name, dir := moduleOf(c.p)
		if name != c.name || dir != c.dir {
			t.Errorf("moduleOf(%q) = %q, %q; want %q, %q", c.p, name, dir, c.name, c.dir)
		}
	}
}
