// The anchor of Benchmarks/run.sh: quick-m3u8's Reader over a playlist, every tag parsed, timed
// the way HLSBenchmark times Carryon's Playlist.parse (warm-up, then runs for a time budget;
// min and median in ms). Prints one JSON object. Built by run.sh against a checkout of
// quick-m3u8 (and, offline, of memchr and fast-float2); never a dependency of Carryon.
use quick_m3u8::{config::ParsingOptionsBuilder, HlsLine, Reader};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn parse(text: &str, options: &quick_m3u8::config::ParsingOptions) -> (usize, usize) {
    let mut reader = Reader::from_str(black_box(text), options.clone());
    let (mut lines, mut uris) = (0, 0);
    loop {
        match reader.read_line() {
            Ok(Some(line)) => {
                lines += 1;
                if let HlsLine::Uri(_) = black_box(&line) {
                    uris += 1;
                }
            }
            Ok(None) => break,
            Err(error) => panic!("line {}: {}", lines + 1, error),
        }
    }
    (lines, uris)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: quick-m3u8-anchor FILE [BUDGET_SECONDS]");
    let budget: f64 = args.next().map(|s| s.parse().expect("budget")).unwrap_or(2.0);
    let text = std::fs::read_to_string(&path).expect("read the playlist");
    let options = ParsingOptionsBuilder::new().with_parsing_for_all_tags().build();
    let (lines, uris) = parse(&text, &options);
    for _ in 0..20 {
        black_box(parse(&text, &options));
    }
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs_f64(budget) || samples.len() < 10 {
        let t = Instant::now();
        black_box(parse(&text, &options));
        samples.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = samples[samples.len() / 2];
    println!(
        "{{\"path\": \"{}\", \"bytes\": {}, \"lines\": {}, \"segments\": {}, \"runs\": {}, \"min\": {:.4}, \"median\": {:.4}}}",
        path, text.len(), lines, uris, samples.len(), samples[0], median
    );
}
