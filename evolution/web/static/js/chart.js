// A rating over time, as a small chart: μ as a line in the band μ ± σ, a dot per point (its
// tooltip says which game or tournament), the rating scale on the left. Drawn with DOM calls (SVG).

import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 170;
const PAD = { left: 40, right: 12, top: 10, bottom: 22 };
const DOTS = 80; // more points than this are drawn as a line only

function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children.flat()) if (child) node.append(child instanceof Node ? child : String(child));
  return node;
}

// points: [{rating, rating_sigma}, ...] oldest first; label(point): what a dot's tooltip says;
// ends: [first, last], the words under the chart's two ends. start: where the rating began (every bot's
// 25 ± 8.33), drawn first as a hollow dot, for a chart of one point: a line from the start to it says more
// than a dot alone.
export function ratingChart(given, { label, ends, caption, start = null }) {
  const points = start ? [{ ...start, start: true }, ...given] : given;
  const labelled = (point) => point.start ? "the start, as for every bot" : label(point);
  if (start) ends = ["start", ends.at(-1)];
  const values = points.flatMap((p) => [p.rating - p.rating_sigma, p.rating + p.rating_sigma]);
  let low = Math.floor(Math.min(...values));
  let high = Math.ceil(Math.max(...values));
  if (high - low < 2) [low, high] = [low - 1, high + 1];
  const span = WIDTH - PAD.left - PAD.right;
  const x = (i) => PAD.left + (points.length === 1 ? span / 2 : (i * span) / (points.length - 1));
  const y = (v) => PAD.top + ((high - v) * (HEIGHT - PAD.top - PAD.bottom)) / (high - low);
  const at = (i, v) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  const upper = points.map((p, i) => at(i, p.rating + p.rating_sigma));
  const lower = points.map((p, i) => at(i, p.rating - p.rating_sigma)).reverse();
  const middle = Math.round((low + high) / 2);
  const scale = [high, middle, low].map((v) => svg("g", { class: "scale" },
    svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v) }),
    svg("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end" }, v)));
  const drawing = svg("svg", {
    class: "rating-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
    "aria-label": `rating μ from ${points[0].rating.toFixed(1)} to ${points.at(-1).rating.toFixed(1)} over ${points.length} points`,
  },
  scale,
  svg("polygon", { class: "band", points: [...upper, ...lower].join(" ") }),
  svg("polyline", { class: "mu", points: points.map((p, i) => at(i, p.rating)).join(" ") }),
  points.length <= DOTS ? points.map((p, i) => svg("circle", { class: p.start ? "dot start" : "dot", cx: x(i), cy: y(p.rating), r: 3.5 },
    svg("title", {}, `${labelled(p)}: ${p.rating.toFixed(2)} ± ${p.rating_sigma.toFixed(2)}`))) : null,
  svg("text", { class: "end", x: PAD.left, y: HEIGHT - 5 }, ends[0]),
  ends.length > 1 ? svg("text", { class: "end", x: WIDTH - PAD.right, y: HEIGHT - 5, "text-anchor": "end" }, ends[1]) : null);
  return h("figure", { class: "chart" }, drawing, h("figcaption", { class: "note" }, caption));
}
