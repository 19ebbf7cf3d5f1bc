package dynmsg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// NewRegistry returns a registry holding the interfaces found under dirs
// and those shipped in package interfaces. Each folder is laid out as
// "<pkg>/msg/<Name>.msg", "<pkg>/srv/<Name>.srv" and
// "<pkg>/action/<Name>.action" at any depth (the --interfaces folder of the
// CLI, or a share folder of a ROS install, see [AmentDirs]); other files are
// ignored. A type found in a folder wins over a type of the same name in a
// later folder and over the shipped one, as the first prefix of
// AMENT_PREFIX_PATH does in ROS.
//
// Files that cannot be read or parsed do not stop the loading: the registry
// holds everything else, and the error joins one error per bad file, naming
// it. A missing folder is such an error too.
func NewRegistry(dirs ...string) (*idl.Registry, error) {
	reg := idl.NewRegistry()
	var errs []error
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		// Absolute file names let ShowInterface read the files again.
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		errs = append(errs, loadFS(reg, os.DirFS(dir), dir)...)
	}
	errs = append(errs, loadFS(reg, interfaces.FS(), "")...)
	return reg, errors.Join(errs...)
}

// loadFS registers the interface files of fsys in reg, skipping types
// already registered, and returns one error per file that failed. root
// prefixes the file names in errors.
func loadFS(reg *idl.Registry, fsys fs.FS, root string) []error {
	var errs []error
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		kind := strings.TrimPrefix(path.Ext(p), ".")
		dir := path.Dir(p)
		if (kind != "msg" && kind != "srv" && kind != "action") || path.Base(dir) != kind || path.Dir(dir) == "." {
			return nil
		}
		pkg := path.Base(path.Dir(dir))
		name := p
		if root != "" {
			name = filepath.Join(root, filepath.FromSlash(p))
		}
		if info, err := d.Info(); err == nil && info.Size() > idl.MaxFileSize {
			errs = append(errs, fmt.Errorf("%w: %s is %d bytes, the limit is %d", idl.ErrTooLarge, name, info.Size(), idl.MaxFileSize))
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if err := reg.AddFile(pkg, name, src); err != nil && !errors.Is(err, idl.ErrDuplicate) {
			errs = append(errs, err)
		}
		return nil
	})
	return errs
}

// AmentDirs returns the share folders "<prefix>/share" of the prefixes of an
// AMENT_PREFIX_PATH value (separated by the OS list separator, ':' on
// Linux) that exist, in order, for [NewRegistry].
func AmentDirs(amentPrefixPath string) []string {
	var out []string
	for _, p := range filepath.SplitList(amentPrefixPath) {
		if p == "" {
			continue
		}
		share := filepath.Join(p, "share")
		if st, err := os.Stat(share); err == nil && st.IsDir() {
			out = append(out, share)
		}
	}
	return out
}
