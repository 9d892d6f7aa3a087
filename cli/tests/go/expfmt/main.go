// Reads a metrics exposition on standard input with the Prometheus Go
// client's text parser (what node_exporter's textfile collector uses) and
// writes each sample as `NAME{LABEL="VALUE",...} VALUE TYPE`, one a line,
// sorted, or the parser's error on standard error (exit status 1).
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func main() {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var lines []string
	for name, family := range families {
		for _, metric := range family.GetMetric() {
			var labels []string
			for _, label := range metric.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", label.GetName(), label.GetValue()))
			}
			value := metric.GetGauge().GetValue()
			lines = append(lines, fmt.Sprintf("%s{%s} %g %s", name, strings.Join(labels, ","), value, strings.ToLower(family.GetType().String())))
		}
	}
	sort.Strings(lines)
	for _, line := range lines {
		fmt.Println(line)
	}
}
