// A scrape of the service's Prometheus endpoint (METRICS_PORT), read as the tests compare it.

/** Prometheus text format's sample lines of `name`, as labels (without the exporter's otel_scope_*) and value. */
export async function samplesOf(metricsUrl: string, name: string): Promise<{ labels: string; value: number }[]> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .map((l) => {
      const m = /^\S+?(\{.*\})?\s+(\S+)/.exec(l)!;
      const labels = (m[1] ?? '').replace(/,?otel_scope_\w+="[^"]*"/g, '').replace('{,', '{');
      return { labels: labels === '{}' ? '' : labels, value: Number(m[2]) };
    });
}
