package eval

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"github.com/foley-audio/foley"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotFormat returns the image format of path from its extension: svg or
// png; anything else is an Invalid error.
func PlotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", foley.Errorf(foley.Invalid, "--plot %s: want a .svg or .png file name", path)
	}
}

// PlotCalibration draws the clap gate's precision-recall curve, with the
// threshold chosen for the target precision marked, to path (.svg or
// .png).
func PlotCalibration(rep *CalibrationReport, path string) error {
	if _, err := PlotFormat(path); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("clap gate: precision vs recall (%s, top %d)", rep.Golden, rep.K)
	p.X.Label.Text = "recall"
	p.Y.Label.Text = "precision"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(plotter.NewGrid())
	var pts plotter.XYs
	for _, pt := range rep.Points {
		if math.IsNaN(float64(pt.Precision)) || math.IsNaN(float64(pt.Recall)) {
			continue
		}
		pts = append(pts, plotter.XY{X: float64(pt.Recall), Y: float64(pt.Precision)})
	}
	if len(pts) > 0 {
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add("clap_score >= t, t from 0 to 1", line)
	}
	target, err := plotter.NewLine(plotter.XYs{{X: 0, Y: rep.Target}, {X: 1, Y: rep.Target}})
	if err != nil {
		return err
	}
	target.Color = color.RGBA{R: 150, G: 150, B: 150, A: 255}
	target.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(target)
	p.Legend.Add(fmt.Sprintf("target precision %.2f", rep.Target), target)
	if t := rep.Threshold; t != nil {
		mark, err := plotter.NewScatter(plotter.XYs{{X: float64(t.Recall), Y: float64(t.Precision)}})
		if err != nil {
			return err
		}
		mark.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
		mark.Radius = vg.Points(4)
		p.Add(mark)
		p.Legend.Add(fmt.Sprintf("tau_clap = %.2f", t.Threshold), mark)
	}
	p.Legend.Top = false
	p.Legend.Left = true
	return save(p, path, 6, 4.5)
}

// PlotRetrieval draws nDCG@K and recall@10 per UCS family as grouped bars
// to path (.svg or .png).
func PlotRetrieval(rep *RetrievalReport, path string) error {
	if _, err := PlotFormat(path); err != nil {
		return err
	}
	var fams []RetrievalSummary
	for _, f := range rep.Families {
		if f.Scored > 0 {
			fams = append(fams, f)
		}
	}
	if len(fams) == 0 {
		return foley.Errorf(foley.Invalid, "--plot: no family has an item with a relevant clip; nothing to draw")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("retrieval per UCS family (%s): mean nDCG@%d %.3f", rep.Golden, rep.K, float64(rep.Overall.NDCG))
	p.Y.Label.Text = "score"
	p.Y.Min, p.Y.Max = 0, 1.15 // room for the legend
	p.Add(plotter.NewGrid())
	ndcg, recall := make(plotter.Values, len(fams)), make(plotter.Values, len(fams))
	names := make([]string, len(fams))
	for i, f := range fams {
		ndcg[i], recall[i] = zeroIfNaN(f.NDCG), zeroIfNaN(f.Recall10)
		names[i] = fmt.Sprintf("%s (%d)", f.Group, f.Scored)
	}
	w := vg.Points(7)
	a, err := plotter.NewBarChart(ndcg, w)
	if err != nil {
		return err
	}
	a.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	a.Offset = -w / 2
	a.LineStyle.Width = 0
	b, err := plotter.NewBarChart(recall, w)
	if err != nil {
		return err
	}
	b.Color = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	b.Offset = w / 2
	b.LineStyle.Width = 0
	p.Add(a, b)
	p.Legend.Add(fmt.Sprintf("nDCG@%d", rep.K), a)
	p.Legend.Add("recall@10", b)
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 3
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	width := math.Max(6, 0.35*float64(len(fams)))
	return save(p, path, width, 5)
}

func zeroIfNaN(m Metric) float64 {
	if math.IsNaN(float64(m)) {
		return 0
	}
	return float64(m)
}

func save(p *plot.Plot, path string, wIn, hIn float64) error {
	if err := p.Save(vg.Length(wIn)*vg.Inch, vg.Length(hIn)*vg.Inch, path); err != nil {
		return foley.Errorf(foley.Invalid, "--plot %s: %v", path, err)
	}
	return nil
}
