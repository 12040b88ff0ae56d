// Package ui is the MCP App (the io.modelcontextprotocol/ui extension,
// SEP-1865) that shows query results, schemas and dry-run costs inside a
// host that renders apps. The app is TypeScript in src/, bundled by the
// pinned esbuild in package.json into one self-contained HTML file,
// app.html, which is committed and embedded here so that building the
// server needs no Node. TestBundleIsCurrent fails when app.html is not what
// a fresh `npm run build` gives.
//
// The package knows MCP Apps and the result shapes the tools return; it
// knows nothing of BigQuery itself. The server decides, per client, which
// tools link to the app.
package ui

import _ "embed"

const (
	// ExtensionID is the extension a client declares under
	// capabilities.extensions, and the server advertises, for MCP Apps.
	ExtensionID = "io.modelcontextprotocol/ui"
	// MIMEType is the app resource's MIME type; a client that renders apps
	// lists it in the extension's mimeTypes.
	MIMEType = "text/html;profile=mcp-app"
	// URI names the app resource; tools link to it with _meta.ui.resourceUri.
	URI = "ui://bigquery-mcp/app.html"
	// MaxBytes bounds app.html (TestBundleIsSelfContained): the issue's
	// 150 KB. The page is ~100 KB because its script ships gzip-compressed
	// (build.mjs): unpacked it is ~260 KB, of which ~25 KB are the app and
	// the rest @modelcontextprotocol/ext-apps with the MCP SDK core and zod
	// it needs.
	MaxBytes = 150 << 10
)

//go:embed app.html
var html string

// HTML returns the app: one HTML file with its script and styles inline.
func HTML() string { return html }
