package main

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/cost"
)

// The pricing flags: on demand at the table's prices by default, location
// prices from --price-per-tib-by-location (any case), editions with a
// slot-hour price, from flags or the environment.
func TestPricingFlags(t *testing.T) {
	s, err := parseArgs(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s.Billing != cost.OnDemand || s.PricePerTiB != 6.25 || s.SlotHourPrice != 0.06 || s.PricePerTiBByLocation != nil {
		t.Errorf("defaults: billing %q, %v/TiB, %v/slot-hour, by location %v", s.Billing, s.PricePerTiB, s.SlotHourPrice, s.PricePerTiBByLocation)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}

	s, err = parseArgs([]string{"--billing", "editions", "--slot-hour-price", "0.04", "--price-per-tib", "5",
		"--price-per-tib-by-location", "Europe-West2=7.82, asia-northeast1=7.5"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s.Billing != cost.Editions || s.SlotHourPrice != 0.04 || s.PricePerTiB != 5 ||
		len(s.PricePerTiBByLocation) != 2 || s.PricePerTiBByLocation["europe-west2"] != 7.82 || s.PricePerTiBByLocation["asia-northeast1"] != 7.5 {
		t.Errorf("flags: billing %q, %v/slot-hour, %v/TiB, by location %v", s.Billing, s.SlotHourPrice, s.PricePerTiB, s.PricePerTiBByLocation)
	}
	if p := s.Prices.For("EUROPE-WEST2"); p.Billing != cost.Editions || p.SlotHourUSD != 0.04 {
		t.Errorf("editions price %+v", p)
	}

	s, err = parseArgs(nil, env(map[string]string{"BIGQUERY_BILLING": "editions", "BIGQUERY_PRICE_PER_TIB_BY_LOCATION": "eu=7"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Billing != cost.Editions || s.PricePerTiBByLocation["eu"] != 7 {
		t.Errorf("environment: billing %q, by location %v", s.Billing, s.PricePerTiBByLocation)
	}

	for _, args := range [][]string{
		{"--billing", "flat-rate"},
		{"--price-per-tib-by-location", "europe-west2"},
		{"--price-per-tib-by-location", "eu=-1"},
	} {
		if _, err := parseArgs(args, env(nil)); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v, want an error naming %s", args, err, args[0])
		}
	}
	for _, args := range [][]string{{"--slot-hour-price", "-1"}, {"--price-per-tib", "-1"}} {
		s, err := parseArgs(args, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: Validate = %v", args, err)
		}
	}
}
