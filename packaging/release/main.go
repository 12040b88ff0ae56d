// Command release finishes a GoReleaser build in dist/ (make bundle,
// make server-json; docs/release.md):
//
//	release bundle -dist dist -clients integration_test/clients
//	release server-json -dist dist -image ghcr.io/bigquery-mcp/bigquery-mcp
//
// bundle packs one MCP Bundle (.mcpb) per released binary with the pinned
// @anthropic-ai/mcpb CLI: packaging/mcpb/manifest.json with the release's
// version and the binary's platform, the binary as server/bigquery-mcp, the
// licence and the README. server-json writes dist/server.json for the MCP
// registry from packaging/registry/server.json: the release's version, the
// image and every bundle with its SHA-256, checked against the registry's
// schema (packaging/registry/server.schema.json).
//
// Both read what GoReleaser wrote: dist/metadata.json (the version) and
// dist/artifacts.json (the binaries and archives).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Where the sources are, relative to the repository root (the working
// directory of `make`).
const (
	manifestSource = "packaging/mcpb/manifest.json"
	serverSource   = "packaging/registry/server.json"
	schemaSource   = "packaging/registry/server.schema.json"
	// downloadBase is where a release's assets are served.
	downloadBase = "https://github.com/bigquery-mcp/bigquery-mcp/releases/download/"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: release bundle|server-json [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dist := fs.String("dist", "dist", "GoReleaser's dist directory")
	clients := fs.String("clients", "integration_test/clients", "the pinned Node tooling, with @anthropic-ai/mcpb installed (make clients)")
	image := fs.String("image", "ghcr.io/bigquery-mcp/bigquery-mcp", "the container image's repository")
	fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "bundle":
		err = bundleAll(*dist, *clients)
	case "server-json":
		err = writeServerJSON(*dist, *image)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// artifact is an entry of GoReleaser's dist/artifacts.json.
type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Type   string `json:"type"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
}

// release is what GoReleaser built.
type release struct {
	Version   string
	Commit    string
	Artifacts []artifact
	root      string // the directory artifact paths are relative to
}

func readRelease(dist string) (*release, error) {
	var meta struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	}
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return nil, fmt.Errorf("%w (run GoReleaser first: make release-snapshot)", err)
	}
	r := &release{Version: meta.Version, Commit: meta.Commit, root: filepath.Dir(filepath.Clean(dist))}
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &r.Artifacts); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *release) path(a artifact) string { return filepath.Join(r.root, a.Path) }

// Binaries returns the built binaries, in a stable order.
func (r *release) Binaries() []artifact {
	var out []artifact
	for _, a := range r.Artifacts {
		if a.Type == "Binary" {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Goos+out[i].Goarch < out[j].Goos+out[j].Goarch })
	return out
}

// BundleName is the file name of the bundle for one platform.
func BundleName(version, goos, goarch string) string {
	return fmt.Sprintf("bigquery-mcp_%s_%s_%s.mcpb", version, goos, goarch)
}

// mcpbPlatform is the manifest's name for a GOOS (Node's process.platform).
func mcpbPlatform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

// errNoClients: the pinned mcpb CLI is not installed.
var errNoClients = errors.New("the pinned @anthropic-ai/mcpb CLI is not installed")

// mcpb runs the pinned CLI in the clients directory, on its pinned Node 22.
func mcpb(clients string, args ...string) error {
	dir, err := filepath.Abs(clients)
	if err != nil {
		return err
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcpb")
	nodeBin := filepath.Join(dir, "node_modules", "node", "bin")
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%w in %s: run `make clients`", errNoClients, dir)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mcpb %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return nil
}

// bundleAll packs a bundle for every binary. Without the pinned CLI it says
// so and packs nothing, unless BQMCP_REQUIRE_CLIENTS=1 (CI) makes that an
// error.
func bundleAll(dist, clients string) error {
	r, err := readRelease(dist)
	if err != nil {
		return err
	}
	if len(r.Binaries()) == 0 {
		return errors.New("no binaries in " + dist)
	}
	var sums strings.Builder
	for _, b := range r.Binaries() {
		path, err := bundle(r, b, dist, clients)
		if errors.Is(err, errNoClients) && os.Getenv("BQMCP_REQUIRE_CLIENTS") != "1" {
			fmt.Fprintln(os.Stderr, "release: skipping the .mcpb bundles:", err)
			return nil
		}
		if err != nil {
			return err
		}
		sum, err := sha256File(path)
		if err != nil {
			return err
		}
		// The format of GoReleaser's checksums.txt (sha256sum -c).
		fmt.Fprintf(&sums, "%s  %s\n", sum, filepath.Base(path))
		fmt.Println(path)
	}
	return os.WriteFile(filepath.Join(dist, BundleChecksums), []byte(sums.String()), 0o644)
}

// BundleChecksums lists the bundles' SHA-256 sums, as checksums.txt does the
// archives' (the bundles are packed after GoReleaser wrote that).
const BundleChecksums = "mcpb-checksums.txt"

// bundle stages and packs the bundle of one binary; it returns its path.
func bundle(r *release, b artifact, dist, clients string) (string, error) {
	stage := filepath.Join(dist, "mcpb", b.Goos+"_"+b.Goarch)
	if err := os.RemoveAll(stage); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(stage, "server"), 0o755); err != nil {
		return "", err
	}
	var manifest map[string]any
	if err := readJSON(manifestSource, &manifest); err != nil {
		return "", err
	}
	manifest["version"] = r.Version
	manifest["compatibility"] = map[string]any{"platforms": []string{mcpbPlatform(b.Goos)}}
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(stage, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	exe := "bigquery-mcp"
	if b.Goos == "windows" {
		exe += ".exe"
	}
	for src, dst := range map[string]string{
		r.path(b):   filepath.Join(stage, "server", exe),
		"LICENSE":   filepath.Join(stage, "LICENSE"),
		"README.md": filepath.Join(stage, "README.md"),
	} {
		mode := os.FileMode(0o644)
		if src == r.path(b) {
			mode = 0o755
		}
		if err := copyFile(src, dst, mode); err != nil {
			return "", err
		}
	}
	stageAbs, err := filepath.Abs(stage)
	if err != nil {
		return "", err
	}
	out, err := filepath.Abs(filepath.Join(dist, BundleName(r.Version, b.Goos, b.Goarch)))
	if err != nil {
		return "", err
	}
	if err := mcpb(clients, "validate", filepath.Join(stageAbs, "manifest.json")); err != nil {
		return "", err
	}
	if err := mcpb(clients, "pack", stageAbs, out); err != nil {
		return "", err
	}
	return out, nil
}

// writeServerJSON renders dist/server.json from the template.
func writeServerJSON(dist, image string) error {
	r, err := readRelease(dist)
	if err != nil {
		return err
	}
	data, err := RenderServerJSON(r, dist, image)
	if err != nil {
		return err
	}
	if err := ValidateServerJSON(data); err != nil {
		return fmt.Errorf("dist/server.json: %w", err)
	}
	out := filepath.Join(dist, "server.json")
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Println(out)
	return nil
}

// RenderServerJSON fills the template: the version, the image tagged with
// it, and one mcpb package per bundle in dist (the template's mcpb entry is
// the model for each).
func RenderServerJSON(r *release, dist, image string) ([]byte, error) {
	var server map[string]any
	if err := readJSON(serverSource, &server); err != nil {
		return nil, err
	}
	server["version"] = r.Version
	var packages []any
	var mcpbModel map[string]any
	for _, p := range server["packages"].([]any) {
		p := p.(map[string]any)
		switch p["registryType"] {
		case "oci":
			p["identifier"] = image + ":" + r.Version
			packages = append(packages, p)
		case "mcpb":
			mcpbModel = p
		default:
			packages = append(packages, p)
		}
	}
	if mcpbModel == nil {
		return nil, errors.New(serverSource + " has no mcpb package to model the bundles on")
	}
	for _, b := range r.Binaries() {
		name := BundleName(r.Version, b.Goos, b.Goarch)
		sum, err := sha256File(filepath.Join(dist, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // not packed (no mcpb CLI)
		}
		if err != nil {
			return nil, err
		}
		p := map[string]any{}
		for k, v := range mcpbModel {
			p[k] = v
		}
		p["identifier"] = downloadBase + "v" + r.Version + "/" + name
		p["fileSha256"] = sum
		packages = append(packages, p)
	}
	server["packages"] = packages
	data, err := json.MarshalIndent(server, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ValidateServerJSON checks a server.json against the registry's schema.
func ValidateServerJSON(data []byte) error {
	raw, err := os.ReadFile(schemaSource)
	if err != nil {
		return err
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fmt.Errorf("%s: %w", schemaSource, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("%s: %w", schemaSource, err)
	}
	var instance any
	if err := json.Unmarshal(data, &instance); err != nil {
		return err
	}
	return resolved.Validate(instance)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
