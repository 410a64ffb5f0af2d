// The Hub page: a router on location.hash over view modules (first cut;
// the views import here as they land).
document.body.dataset.ready = '1';
