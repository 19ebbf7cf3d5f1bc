package afortest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The suites' docs list exactly the subtests they run, and the package's
// comments point to no file missing from the repository.
func TestDocMatchesSuites(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "conformance.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	item := regexp.MustCompile(`(?m)^  - (\w+):`)
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || (fn.Name.Name != "RunPubSub" && fn.Name.Name != "RunReqRep") {
			continue
		}
		var documented, run []string
		for _, m := range item.FindAllStringSubmatch(fn.Doc.Text(), -1) {
			documented = append(documented, m[1])
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if name, err := strconv.Unquote(lit.Value); err == nil && isRunCall(call) {
						run = append(run, name)
					}
					break
				}
			}
			return true
		})
		if !slices.Equal(documented, run) {
			t.Errorf("%s documents %v but runs %v", fn.Name.Name, documented, run)
		}
	}
}

func isRunCall(call *ast.CallExpr) bool {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name == "run"
	case *ast.SelectorExpr:
		return f.Sel.Name == "run"
	}
	return false
}

func TestDocNamesNoMissingFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	mdRef := regexp.MustCompile(`[\w./-]+\.md\b`)
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, ref := range mdRef.FindAllString(line, -1) {
				if _, err := os.Stat(filepath.Join("..", ref)); err != nil {
					t.Errorf("%s refers to %s, which is not in the repository", name, ref)
				}
			}
		}
	}
}
