// Command check validates concbench's container image definition offline, with BuildKit's
// own Dockerfile parser and linter (the code `docker build` and `docker build --check` run),
// since no Docker engine is needed for that. It prints what concbench's test
// (crates/concbench/tests/deploy.rs) then checks, as JSON: the stages with their base, the
// stages they copy from and their last USER, the final stage's ENTRYPOINT, and every lint
// warning. Parse errors exit 1.
//
//	go run ./deploy/check deploy/Dockerfile
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

type stage struct {
	Name       string   `json:"name"`
	Base       string   `json:"base"`
	CopyFrom   []string `json:"copy_from"`
	User       string   `json:"user"`
	Entrypoint []string `json:"entrypoint"`
}

type report struct {
	Stages   []stage  `json:"stages"`
	Warnings []string `json:"warnings"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: check DOCKERFILE")
		os.Exit(2)
	}
	if err := check(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ast, err := parser.Parse(f)
	if err != nil {
		return err
	}
	out := report{Warnings: []string{}}
	for _, w := range ast.Warnings {
		out.Warnings = append(out.Warnings, w.Short)
	}
	lint := linter.New(&linter.Config{
		Warn: func(rule, description, url, msg string, _ []parser.Range) {
			out.Warnings = append(out.Warnings, rule+": "+msg)
		},
	})
	stages, _, err := instructions.Parse(ast.AST, lint)
	if err != nil {
		return err
	}
	for _, s := range stages {
		st := stage{Name: s.Name, Base: s.BaseName, CopyFrom: []string{}}
		for _, c := range s.Commands {
			switch c := c.(type) {
			case *instructions.CopyCommand:
				if c.From != "" {
					st.CopyFrom = append(st.CopyFrom, c.From)
				}
			case *instructions.UserCommand:
				st.User = c.User
			case *instructions.EntrypointCommand:
				st.Entrypoint = c.CmdLine
			}
		}
		out.Stages = append(out.Stages, st)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
