package extract

func extractPython(fr *fileResult, data []byte, e *env)     { fileNode(fr, nil) }
func extractJSTS(fr *fileResult, data []byte, e *env)       { fileNode(fr, nil) }
func extractMarkdown(fr *fileResult, data []byte, e *env)   { fileNode(fr, nil) }
func extractConfig(fr *fileResult, data []byte, e *env)     { fileNode(fr, nil) }
func extractManifest(fr *fileResult, data []byte, e *env)   { fileNode(fr, nil) }
func pythonModules(files map[string]bool) map[string]string { return nil }
func jstsDialect(base string) string                        { return "" }
func isManifest(base string) bool                           { return false }
