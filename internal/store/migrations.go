package store

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one schema migration file: migrations/<version>_<name>.sql.
type Migration struct {
	Version int
	Name    string // the path inside the file system, for errors and ReadFile
}

// Migrations lists the migrations under migrations/ of fsys in version order. A
// store records only the version it applied, so two files with one version
// would leave the second unapplied without a word: that, and a name without a
// version, is an error here.
func Migrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	out := make([]Migration, 0, len(names))
	seen := map[int]string{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a version number and '_'", name)
		}
		if other, ok := seen[v]; ok {
			return nil, fmt.Errorf("migrations %s and %s have the same version %d", other, name, v)
		}
		seen[v] = name
		out = append(out, Migration{Version: v, Name: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}
