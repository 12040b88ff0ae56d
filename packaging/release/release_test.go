package main

// The release artefacts, checked offline. The template and flag tests always
// run; the TestRelease*Dist tests check a GoReleaser build in
// $BQMCP_RELEASE_DIST (make release-check sets it after two snapshot builds
// of linux/amd64; after `make release-snapshot` it checks all six
// platforms) and skip without it.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// The tool works from the repository root, as under make.
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// The template validates against the registry's schema, and the validator
// refuses what the schema refuses.
func TestServerJSONTemplateValidates(t *testing.T) {
	data, err := os.ReadFile(serverSource)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateServerJSON(data); err != nil {
		t.Fatalf("%s: %v", serverSource, err)
	}
	var server map[string]any
	json.Unmarshal(data, &server)
	if server["$schema"] != "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" {
		t.Errorf("$schema = %v", server["$schema"])
	}
	for _, spoil := range []func(map[string]any){
		func(s map[string]any) { delete(s, "name") },
		func(s map[string]any) { s["name"] = "no-slash" },
		func(s map[string]any) { s["description"] = strings.Repeat("x", 101) },
		func(s map[string]any) { s["packages"].([]any)[1].(map[string]any)["fileSha256"] = "not-hex" },
		func(s map[string]any) { s["packages"].([]any)[0].(map[string]any)["version"] = "latest" },
	} {
		var s map[string]any
		json.Unmarshal(data, &s)
		spoil(s)
		bad, _ := json.Marshal(s)
		if ValidateServerJSON(bad) == nil {
			t.Errorf("the schema accepted %s", bad)
		}
	}
	// The schema in the repository is the one it names.
	schema, err := os.ReadFile(schemaSource)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(schema, []byte(`"$id": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"`)) {
		t.Errorf("%s is not the 2025-12-11 schema", schemaSource)
	}
}

// The bundle manifest and the registry entry name the same server.
func TestManifestAndServerJSONAgree(t *testing.T) {
	var manifest struct {
		Name       string               `json:"name"`
		Version    string               `json:"version"`
		License    string               `json:"license"`
		Repository struct{ URL string } `json:"repository"`
	}
	var server struct {
		Name       string               `json:"name"`
		Version    string               `json:"version"`
		Repository struct{ URL string } `json:"repository"`
	}
	if err := readJSON(manifestSource, &manifest); err != nil {
		t.Fatal(err)
	}
	if err := readJSON(serverSource, &server); err != nil {
		t.Fatal(err)
	}
	if manifest.Version != server.Version || manifest.Repository.URL != server.Repository.URL ||
		!strings.HasSuffix(server.Name, "/"+manifest.Name) || manifest.License != "Apache-2.0" {
		t.Errorf("manifest %+v and server.json %+v disagree", manifest, server)
	}
}

// Every build of the binary uses the same flags: the Makefile, the
// Dockerfile, .goreleaser.yaml and .ko.yaml.
func TestReleaseBuildFlagsAgree(t *testing.T) {
	want := []string{"CGO_ENABLED=0", "-trimpath", "-buildvcs=false", "-tags=grpcnotrace", "-s -w", "-X main.version=", "-X main.commit="}
	for _, file := range []string{"Makefile", "Dockerfile", ".goreleaser.yaml", ".ko.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !bytes.Contains(data, []byte(w)) {
				t.Errorf("%s does not build with %s", file, w)
			}
		}
	}
}

// The binary, built with the Makefile's BUILD_FLAGS, reaches no dynamic
// method lookup (reflect.Value.MethodByName or Method, e.g. through
// text/template): with one, the linker keeps every exported method of every
// type stored in an interface, which was 13 MB of this binary (gRPC's
// request tracing pages, left out by grpcnotrace; docs/performance.md).
// The linker's -dumpdep marks the functions that make it so <ReflectMethod>.
func TestReleaseBinaryKeepsUnusedMethodsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("links the binary")
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^BUILD_FLAGS\s*:=(.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile sets no BUILD_FLAGS")
	}
	args := append([]string{"build"}, strings.Fields(string(m[1]))...)
	args = append(args, "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "bigquery-mcp"), "./cmd/bigquery-mcp")
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%.2000s", strings.Join(args, " "), err, out)
	}
	var callers []string
	for line := range strings.Lines(string(out)) {
		for _, end := range strings.Split(strings.TrimSpace(line), " -> ") {
			if f, ok := strings.CutSuffix(end, " <ReflectMethod>"); ok && !slices.Contains(callers, f) {
				callers = append(callers, f)
			}
		}
	}
	if len(callers) > 0 {
		t.Errorf("the binary reaches dynamic method lookup, so it keeps every exported method of every type in an interface: %s", strings.Join(callers, ", "))
	}
}

// The image carries the licence as kodata (ko refuses symlinks out of
// kodata/): the copy must be the repository's LICENSE.
func TestKodataLicenseIsTheLicense(t *testing.T) {
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	copied, err := os.ReadFile("cmd/bigquery-mcp/kodata/LICENSE")
	if err != nil || !bytes.Equal(copied, license) {
		t.Errorf("cmd/bigquery-mcp/kodata/LICENSE differs from LICENSE (%v): cp LICENSE cmd/bigquery-mcp/kodata/", err)
	}
}

func releaseDist(t *testing.T) (string, *release) {
	t.Helper()
	dist := os.Getenv("BQMCP_RELEASE_DIST")
	if dist == "" {
		t.Skip("BQMCP_RELEASE_DIST is not set: make release-check builds dist/ and sets it")
	}
	r, err := readRelease(dist)
	if err != nil {
		t.Fatal(err)
	}
	return dist, r
}

// Each archive holds the binary for its platform (read from its header), the
// licence, the README and the changelog; checksums.txt names every archive
// with its SHA-256; the binary for this machine prints the version and
// commit.
func TestReleaseArchivesDist(t *testing.T) {
	dist, r := releaseDist(t)
	sums := readChecksums(t, filepath.Join(dist, "checksums.txt"))
	archives := 0
	for _, a := range r.Artifacts {
		if a.Type != "Archive" {
			continue
		}
		archives++
		files := readArchive(t, r.path(a))
		exe := "bigquery-mcp"
		if a.Goos == "windows" {
			exe += ".exe"
		}
		var names []string
		for name := range files {
			names = append(names, name)
		}
		slices.Sort(names)
		if want := []string{"CHANGELOG.md", "LICENSE", "README.md", exe}; !slices.Equal(names, want) {
			t.Errorf("%s holds %v, want %v", a.Name, names, want)
		}
		if goos, goarch := binaryPlatform(t, files[exe]); goos != a.Goos || goarch != a.Goarch {
			t.Errorf("%s: the binary is for %s/%s", a.Name, goos, goarch)
		}
		if license, _ := os.ReadFile("LICENSE"); !bytes.Equal(files["LICENSE"], license) {
			t.Errorf("%s: LICENSE differs from the repository's", a.Name)
		}
		if got, want := sums[a.Name], sha256Hex(t, r.path(a)); got != want {
			t.Errorf("checksums.txt says %s for %s, the file is %s", got, a.Name, want)
		}
		if a.Goos == runtime.GOOS && a.Goarch == runtime.GOARCH {
			bin := filepath.Join(t.TempDir(), exe)
			os.WriteFile(bin, files[exe], 0o755)
			out, err := exec.Command(bin, "--version").CombinedOutput()
			want := fmt.Sprintf("bigquery-mcp %s (commit %s)\n", r.Version, r.Commit)
			if err != nil || string(out) != want || len(r.Commit) != 40 {
				t.Errorf("%s --version: %q, %v; want %q", a.Name, out, err, want)
			}
		}
	}
	if archives == 0 || archives != len(sums) {
		t.Errorf("%d archives, %d checksums", archives, len(sums))
	}
}

// Each bundle's manifest carries the release's version and its platform, and
// names a binary that is in it: the same bytes as the archive's.
func TestReleaseBundlesDist(t *testing.T) {
	dist, r := releaseDist(t)
	var sums map[string]string
	for _, b := range r.Binaries() {
		path := filepath.Join(dist, BundleName(r.Version, b.Goos, b.Goarch))
		if _, err := os.Stat(path); err != nil {
			if os.Getenv("BQMCP_REQUIRE_CLIENTS") == "1" {
				t.Fatalf("BQMCP_REQUIRE_CLIENTS=1 but no bundle: %v", err)
			}
			t.Skipf("no bundles (the mcpb CLI is not installed: make clients): %v", err)
		}
		if sums == nil {
			sums = readChecksums(t, filepath.Join(dist, BundleChecksums))
			if len(sums) != len(r.Binaries()) {
				t.Errorf("%s lists %d bundles, want %d", BundleChecksums, len(sums), len(r.Binaries()))
			}
		}
		if got, want := sums[filepath.Base(path)], sha256Hex(t, path); got != want {
			t.Errorf("%s says %s for %s, the file is %s", BundleChecksums, got, path, want)
		}
		files := readArchive(t, path)
		var manifest bundleManifest
		if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil {
			t.Fatalf("%s: manifest.json: %v", path, err)
		}
		platform := mcpbPlatform(b.Goos)
		if manifest.Version != r.Version || !slices.Equal(manifest.Compatibility.Platforms, []string{platform}) {
			t.Errorf("%s: version %q platforms %v", path, manifest.Version, manifest.Compatibility.Platforms)
		}
		command := manifest.Server.MCPConfig.Command
		if o, ok := manifest.Server.MCPConfig.PlatformOverrides[platform]; ok && o.Command != "" {
			command = o.Command
		}
		entry := strings.TrimPrefix(command, "${__dirname}/")
		bin, ok := files[entry]
		if !ok {
			t.Errorf("%s: the manifest runs %s, which is not in the bundle", path, entry)
			continue
		}
		if built, _ := os.ReadFile(r.path(b)); !bytes.Equal(bin, built) {
			t.Errorf("%s: %s is not the released binary", path, entry)
		}
		if goos, goarch := binaryPlatform(t, bin); goos != b.Goos || goarch != b.Goarch {
			t.Errorf("%s: %s is for %s/%s", path, entry, goos, goarch)
		}
		if _, ok := files["LICENSE"]; !ok {
			t.Errorf("%s has no LICENSE", path)
		}
	}
}

type bundleManifest struct {
	Version       string `json:"version"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	Server struct {
		MCPConfig struct {
			Command           string `json:"command"`
			PlatformOverrides map[string]struct {
				Command string `json:"command"`
			} `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
}

// dist/server.json validates, carries the release's version, and names
// every bundle with its SHA-256 and the image tagged with the version.
func TestReleaseServerJSONDist(t *testing.T) {
	dist, r := releaseDist(t)
	data, err := os.ReadFile(filepath.Join(dist, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateServerJSON(data); err != nil {
		t.Fatal(err)
	}
	var server struct {
		Version  string `json:"version"`
		Packages []struct {
			RegistryType string `json:"registryType"`
			Identifier   string `json:"identifier"`
			FileSha256   string `json:"fileSha256"`
		} `json:"packages"`
	}
	json.Unmarshal(data, &server)
	if server.Version != r.Version {
		t.Errorf("version %q, want %q", server.Version, r.Version)
	}
	tag := regexp.MustCompile(`^[\w][\w.-]{0,127}$`)
	var oci, bundles int
	for _, p := range server.Packages {
		switch p.RegistryType {
		case "oci":
			oci++
			if !strings.HasSuffix(p.Identifier, ":"+r.Version) || !tag.MatchString(r.Version) {
				t.Errorf("image %s: want the tag %s (a valid OCI tag)", p.Identifier, r.Version)
			}
		case "mcpb":
			bundles++
			name := p.Identifier[strings.LastIndex(p.Identifier, "/")+1:]
			if want := downloadBase + "v" + r.Version + "/" + name; p.Identifier != want {
				t.Errorf("bundle URL %s, want %s", p.Identifier, want)
			}
			if got := sha256Hex(t, filepath.Join(dist, name)); got != p.FileSha256 {
				t.Errorf("%s: fileSha256 %s, the file is %s", name, p.FileSha256, got)
			}
		}
	}
	if oci != 1 {
		t.Errorf("%d images, want 1", oci)
	}
	if matches, _ := filepath.Glob(filepath.Join(dist, "*.mcpb")); bundles != len(matches) {
		t.Errorf("server.json lists %d bundles, dist has %d", bundles, len(matches))
	}
}

func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, line)
		}
		sums[name] = sum
	}
	return sums
}

// readArchive returns the regular files of a .tar.gz, .zip or .mcpb.
func readArchive(t *testing.T, path string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".tar.gz") {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if h.Typeflag == tar.TypeReg {
				files[h.Name], _ = io.ReadAll(tr)
			}
		}
		return files
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return files
}

// binaryPlatform reads an executable's header: ELF (linux), Mach-O
// (darwin) or PE (windows), and its architecture.
func binaryPlatform(t *testing.T, b []byte) (goos, goarch string) {
	t.Helper()
	r := bytes.NewReader(b)
	if f, err := elf.NewFile(r); err == nil {
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64"
		case elf.EM_AARCH64:
			return "linux", "arm64"
		}
		return "linux", f.Machine.String()
	}
	if f, err := macho.NewFile(r); err == nil {
		switch f.Cpu {
		case macho.CpuAmd64:
			return "darwin", "amd64"
		case macho.CpuArm64:
			return "darwin", "arm64"
		}
		return "darwin", f.Cpu.String()
	}
	if f, err := pe.NewFile(r); err == nil {
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64"
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64"
		}
		return "windows", fmt.Sprint(f.Machine)
	}
	t.Errorf("not an ELF, Mach-O or PE executable (%d bytes)", len(b))
	return "", ""
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ociImage is one platform's image read from an OCI layout.
type ociImage struct {
	Platform string
	Config   struct {
		User       string            `json:"User"`
		Entrypoint []string          `json:"Entrypoint"`
		Cmd        []string          `json:"Cmd"`
		Env        []string          `json:"Env"`
		Labels     map[string]string `json:"Labels"`
	}
	Files map[string][]byte // regular files of every layer, by path without a leading /
	Links []string          // symlinks and hard links, by path
}

// readOCILayout returns every image in an OCI image layout (ko
// --oci-layout-path), following indexes.
func readOCILayout(t *testing.T, dir string) []ociImage {
	t.Helper()
	blob := func(digest string) []byte {
		algo, hexsum, _ := strings.Cut(digest, ":")
		b, err := os.ReadFile(filepath.Join(dir, "blobs", algo, hexsum))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type descriptor struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
		Platform  *struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
		} `json:"platform"`
	}
	var images []ociImage
	var walk func(d descriptor)
	walk = func(d descriptor) {
		data := blob(d.Digest)
		var m struct {
			Manifests []descriptor `json:"manifests"`
			Config    descriptor   `json:"config"`
			Layers    []descriptor `json:"layers"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(d.MediaType, "index") || strings.Contains(d.MediaType, "manifest.list") {
			for _, c := range m.Manifests {
				walk(c)
			}
			return
		}
		img := ociImage{Files: map[string][]byte{}}
		if d.Platform != nil {
			img.Platform = d.Platform.OS + "/" + d.Platform.Architecture
		}
		var cfg struct {
			OS           string          `json:"os"`
			Architecture string          `json:"architecture"`
			Config       json.RawMessage `json:"config"`
		}
		json.Unmarshal(blob(m.Config.Digest), &cfg)
		json.Unmarshal(cfg.Config, &img.Config)
		if img.Platform == "" { // a single image, not in an index
			img.Platform = cfg.OS + "/" + cfg.Architecture
		}
		for _, l := range m.Layers {
			gz, err := gzip.NewReader(bytes.NewReader(blob(l.Digest)))
			if err != nil {
				t.Fatal(err)
			}
			tr := tar.NewReader(gz)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				name := strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/")
				switch h.Typeflag {
				case tar.TypeReg:
					img.Files[name], _ = io.ReadAll(tr)
				case tar.TypeSymlink, tar.TypeLink:
					img.Links = append(img.Links, name)
				}
			}
		}
		images = append(images, img)
	}
	var index struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := readJSON(filepath.Join(dir, "index.json"), &index); err != nil {
		t.Fatal(err)
	}
	for _, d := range index.Manifests {
		walk(d)
	}
	return images
}

// The container image (make image-check builds it offline into
// $BQMCP_RELEASE_IMAGE): the binary as entrypoint, a non-root user, no
// shell, the OCI labels; its binary prints the version and commit the
// labels name, and, in the image's environment, serves http with no
// command given.
func TestReleaseImageDist(t *testing.T) {
	dir := os.Getenv("BQMCP_RELEASE_IMAGE")
	if dir == "" {
		t.Skip("BQMCP_RELEASE_IMAGE is not set: make image-check builds the image and sets it")
	}
	images := readOCILayout(t, dir)
	if len(images) == 0 {
		t.Fatal("no image in " + dir)
	}
	var server struct{ Name string }
	readJSON(serverSource, &server)
	ran := false
	defer func() {
		if !ran {
			t.Errorf("no image for %s/%s to run the binary of", runtime.GOOS, runtime.GOARCH)
		}
	}()
	for _, img := range images {
		c := img.Config
		if !slices.Equal(c.Entrypoint, []string{"/ko-app/bigquery-mcp"}) || len(c.Cmd) != 0 {
			t.Errorf("%s: entrypoint %q cmd %q", img.Platform, c.Entrypoint, c.Cmd)
		}
		if user, _, _ := strings.Cut(c.User, ":"); user == "" || user == "0" || user == "root" {
			t.Errorf("%s: runs as %q, want a non-root user", img.Platform, c.User)
		}
		for _, name := range append(slices.Collect(maps.Keys(img.Files)), img.Links...) {
			if base := filepath.Base(name); base == "sh" || base == "bash" || base == "ash" || base == "dash" || base == "busybox" {
				t.Errorf("%s: the image has a shell: %s", img.Platform, name)
			}
		}
		l := c.Labels
		if l["org.opencontainers.image.source"] != "https://github.com/bigquery-mcp/bigquery-mcp" ||
			l["org.opencontainers.image.licenses"] != "Apache-2.0" || l["org.opencontainers.image.version"] == "" ||
			len(l["org.opencontainers.image.revision"]) != 40 || l["io.modelcontextprotocol.server.name"] != server.Name {
			t.Errorf("%s: labels %v", img.Platform, l)
		}
		if got := strings.TrimSpace(string(img.Files["var/run/ko/default-command"])); got != "http" {
			t.Errorf("%s: kodata/default-command is %q, want http", img.Platform, got)
		}
		if license, _ := os.ReadFile("LICENSE"); !bytes.Equal(img.Files["var/run/ko/LICENSE"], license) {
			t.Errorf("%s: the image lacks the licence at /var/run/ko/LICENSE", img.Platform)
		}
		if !slices.Contains(c.Env, "KO_DATA_PATH=/var/run/ko") {
			t.Errorf("%s: env %q lacks KO_DATA_PATH", img.Platform, c.Env)
		}
		if img.Platform != runtime.GOOS+"/"+runtime.GOARCH {
			continue
		}
		ran = true
		root := t.TempDir()
		bin := filepath.Join(root, "bigquery-mcp")
		os.WriteFile(bin, img.Files["ko-app/bigquery-mcp"], 0o755)
		out, err := exec.Command(bin, "--version").CombinedOutput()
		want := fmt.Sprintf("bigquery-mcp %s (commit %s)\n", l["org.opencontainers.image.version"], l["org.opencontainers.image.revision"])
		if err != nil || string(out) != want {
			t.Errorf("the image's binary --version: %q, %v; want %q", out, err, want)
		}
		// The image's environment, its kodata, no command: it serves http.
		kodata := filepath.Join(root, "kodata")
		os.MkdirAll(kodata, 0o755)
		os.WriteFile(filepath.Join(kodata, "default-command"), img.Files["var/run/ko/default-command"], 0o644)
		addr := freeAddr(t)
		cmd := exec.Command(bin)
		cmd.Env = []string{"KO_DATA_PATH=" + kodata, "HOME=" + root, "BIGQUERY_ADDR=" + addr,
			"BIGQUERY_PROJECT=p", "BIGQUERY_ENDPOINT=http://127.0.0.1:1"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		served := false
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !served; time.Sleep(50 * time.Millisecond) {
			if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
				resp.Body.Close()
				served = resp.StatusCode == http.StatusOK
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !served {
			t.Errorf("the image's binary, given no command, does not serve http on %s:\n%s", addr, stderr.String())
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
