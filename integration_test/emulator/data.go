package emulator

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-playground/validator/v10"
	"github.com/goccy/bigquery-emulator/types"
	"github.com/goccy/go-yaml"
)

// decodeProjects reads emulator YAML documents (the format of sample.yaml)
// as the emulator's own YAML loader does, and merges the datasets of
// projects that share an ID. The emulator cannot load them one after the
// other: each load replaces a project's list of datasets.
func decodeProjects(docs [][]byte) ([]*types.Project, error) {
	validate := validator.New()
	types.RegisterTypeValidation(validate)
	var merged []*types.Project
	byID := map[string]*types.Project{}
	for i, doc := range docs {
		var v struct {
			Projects []*types.Project `yaml:"projects" validate:"required"`
		}
		dec := yaml.NewDecoder(bytes.NewReader(doc), yaml.Validator(validate), yaml.Strict())
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, errors.New(yaml.FormatError(err, false, true)))
		}
		for _, p := range v.Projects {
			if have, ok := byID[p.ID]; ok {
				have.Datasets = append(have.Datasets, p.Datasets...)
				continue
			}
			byID[p.ID] = p
			merged = append(merged, p)
		}
	}
	return merged, nil
}
