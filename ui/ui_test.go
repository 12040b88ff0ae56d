package ui

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBundleIsCurrent fails when app.html is not what a fresh build of
// src/ gives with the pinned tools (package-lock.json). It needs Node and
// `npm ci` here (make clients); without them it skips, unless
// BQMCP_REQUIRE_CLIENTS is set (CI), where that is a failure.
func TestBundleIsCurrent(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("node_modules", "esbuild", "package.json"))
	}
	if err != nil {
		if os.Getenv("BQMCP_REQUIRE_CLIENTS") != "" {
			t.Fatalf("cannot build the app (BQMCP_REQUIRE_CLIENTS is set): %v; run make clients", err)
		}
		t.Skipf("cannot build the app (no node, or no ui/node_modules: make clients): %v", err)
	}
	out, err := exec.Command(node, "build.mjs", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// TestAppTypeChecks: esbuild strips types without checking them; tsc
// (pinned, strict) checks src/. Skips and fails as TestBundleIsCurrent.
func TestAppTypeChecks(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("node_modules", "typescript", "bin", "tsc"))
	}
	if err != nil {
		if os.Getenv("BQMCP_REQUIRE_CLIENTS") != "" {
			t.Fatalf("cannot type-check the app (BQMCP_REQUIRE_CLIENTS is set): %v; run make clients", err)
		}
		t.Skipf("cannot type-check the app (no node, or no ui/node_modules: make clients): %v", err)
	}
	if out, err := exec.Command(node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".").CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// TestBundleIsSelfContained: the app is one HTML file within its size
// bound that names nothing to load (no external script, style, image or
// font; no CDN), and has no inline event handler attributes, so it runs
// under the strictest host CSP with an empty _meta.ui.csp. Its script is
// checked unpacked too: what runs must not load anything either.
func TestBundleIsSelfContained(t *testing.T) {
	h := HTML()
	script := unpacked(t, h)
	t.Logf("app.html: %d bytes (bound %d); its script unpacked: %d bytes", len(h), MaxBytes, len(script))
	if len(h) > MaxBytes {
		t.Errorf("app.html is %d bytes, more than %d", len(h), MaxBytes)
	}
	if !strings.HasPrefix(h, "<!doctype html>") {
		t.Errorf("app.html starts %.40q", h)
	}
	// The markup around the inline script, its data block and the style.
	markup := regexp.MustCompile(`(?s)<script[^>]*>.*?</script>|<style>.*?</style>`).ReplaceAllString(h, "")
	if n := strings.Count(h, "<script"); n != 2 {
		t.Errorf("%d script elements, want the compressed script's data block and the inline script that runs it", n)
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|img|link|iframe|object|embed|source|video|audio)\b[^>]*\b(src|href)=`),
		regexp.MustCompile(`(?i)\son[a-z]+\s*=`),
		regexp.MustCompile(`(?i)<base\b|<meta[^>]+http-equiv`),
	} {
		if m := bad.FindString(markup); m != "" {
			t.Errorf("app.html markup has %q", m)
		}
	}
	// Styles load nothing either.
	for _, css := range regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(h, -1) {
		if m := regexp.MustCompile(`(?i)@import|url\(\s*['"]?(https?:|//)`).FindString(css[1]); m != "" {
			t.Errorf("the styles load %q", m)
		}
	}
	// No CDN or package host is named anywhere, script included.
	for _, host := range []string{"cdn.", "unpkg.com", "jsdelivr", "esm.sh", "googleapis.com", "fonts.g"} {
		if strings.Contains(h, host) || strings.Contains(script, host) {
			t.Errorf("app.html names %s", host)
		}
	}
	// The boot script runs what it unpacks as an inline script, never
	// through eval or a URL that a strict CSP would refuse.
	boot := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(h)
	if boot == nil || !strings.Contains(boot[1], "DecompressionStream") {
		t.Fatal("app.html has no boot script that unpacks the compressed one")
	}
	for _, bad := range []string{"eval(", "new Function", "createObjectURL", "import("} {
		if strings.Contains(boot[1], bad) {
			t.Errorf("the boot script uses %s", bad)
		}
	}
}

// unpacked is the app's script, as the page's boot script unpacks it.
func unpacked(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/gzip" id="bundle">([A-Za-z0-9+/=]*)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("app.html has no compressed script block")
	}
	raw, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatalf("the script block is not base64: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the script block is not gzip: %v", err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("unpacking the script: %v", err)
	}
	return string(js)
}
