"""ingestion.normalize: runs of short sibling paragraphs joined into passages (merge_chars)."""


from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph, section, table_node
from dropqa.ingestion.normalize import NormalizeLimits, normalize

MERGE = NormalizeLimits(max_paragraph_chars=800, paragraph_target_chars=500, max_section_chars=6000, merge_chars=500)
NO_MERGE = NormalizeLimits(max_paragraph_chars=800, paragraph_target_chars=500, max_section_chars=6000, merge_chars=0)


def _contents(nodes: list[ParsedNode]) -> list[str]:
    return [n.content for n in nodes]


def test_short_paragraphs_under_one_section_become_one_passage():
    texts = ["**Judgment Result**", "The defendant is sentenced to three years.", "Costs are borne by the defendant."]
    doc = ParsedDocument("d", "md", [section("Judgment", [paragraph(t) for t in texts])])
    normalize(doc, MERGE)
    children = doc.children[0].children
    assert len(children) == 1
    merged = children[0]
    assert merged.node_type == "paragraph"
    assert merged.content == "\n".join(texts)
    assert merged.metadata["merged"] == 3


def test_merge_chars_zero_keeps_paragraphs_apart():
    texts = ["one", "two", "three"]
    doc = ParsedDocument("d", "md", [section("S", [paragraph(t) for t in texts])])
    normalize(doc, NO_MERGE)
    assert _contents(doc.children[0].children) == texts
    assert all("merged" not in n.metadata for n in doc.children[0].children)


def test_never_across_sections():
    doc = ParsedDocument("d", "md", [
        section("A", [paragraph("a1"), paragraph("a2")]),
        section("B", [paragraph("b1"), paragraph("b2")]),
    ])
    normalize(doc, MERGE)
    assert [n.title for n in doc.children] == ["A", "B"]
    assert _contents(doc.children[0].children) == ["a1\na2"]
    assert _contents(doc.children[1].children) == ["b1\nb2"]


def test_never_across_a_subsection_heading():
    doc = ParsedDocument("d", "md", [section("A", [paragraph("a1"), section("A.1", [paragraph("s")]),
                                                   paragraph("a2")])])
    normalize(doc, MERGE)
    children = doc.children[0].children
    assert [n.node_type for n in children] == ["paragraph", "section", "paragraph"]
    assert children[0].content == "a1" and children[2].content == "a2"


def test_never_across_a_table():
    doc = ParsedDocument("d", "md", [paragraph("one"), paragraph("two"), table_node(["a", "b"], [["1", "2"]]),
                                     paragraph("three"), paragraph("four")])
    normalize(doc, MERGE)
    assert [n.node_type for n in doc.children] == ["paragraph", "table", "paragraph"]
    assert doc.children[0].content == "one\ntwo"
    assert doc.children[2].content == "three\nfour"
    assert doc.children[1].metadata["table"]["rows"] == [["1", "2"]]  # the table is untouched


def test_chat_messages_are_never_merged():
    doc = ParsedDocument("d", "md", [
        paragraph("before"),
        paragraph("hi", speaker="Ann", timestamp="10:00"),
        paragraph("hello", speaker="Bob", timestamp="10:01"),
        paragraph("after"),
        paragraph("end"),
    ])
    normalize(doc, MERGE)
    assert _contents(doc.children) == ["before", "hi", "hello", "after\nend"]
    assert [n.metadata.get("speaker") for n in doc.children] == [None, "Ann", "Bob", None]


def test_never_across_a_page_change():
    doc = ParsedDocument("d", "pdf", [paragraph("p1a", page=1), paragraph("p1b", page=1),
                                      paragraph("p2a", page=2), paragraph("p2b", page=2)])
    normalize(doc, MERGE)
    assert _contents(doc.children) == ["p1a\np1b", "p2a\np2b"]
    assert [n.metadata["page"] for n in doc.children] == [1, 2]


def test_never_across_a_segment_type_change():
    doc = ParsedDocument("d", "pdf", [paragraph("scan text", segment_type="ocr"),
                                      paragraph("body text", segment_type="text")])
    normalize(doc, MERGE)
    assert _contents(doc.children) == ["scan text", "body text"]


def test_paragraph_at_or_over_the_limit_stays_alone_and_breaks_the_run():
    long = "x" * 500  # == merge_chars
    doc = ParsedDocument("d", "md", [paragraph("short a"), paragraph(long), paragraph("short b"),
                                     paragraph("short c")])
    normalize(doc, MERGE)
    assert _contents(doc.children) == ["short a", long, "short b\nshort c"]
    assert "merged" not in doc.children[1].metadata


def test_merged_passages_stay_within_merge_chars_and_keep_the_order():
    texts = [c * 200 for c in "abcde"]
    doc = ParsedDocument("d", "md", [paragraph(t) for t in texts])
    normalize(doc, MERGE)
    contents = _contents(doc.children)
    assert contents == ["a" * 200 + "\n" + "b" * 200, "c" * 200 + "\n" + "d" * 200, "e" * 200]
    assert all(len(c) <= MERGE.merge_chars for c in contents)


def test_exactly_full_passage_is_allowed():
    # 249 + 1 (newline) + 250 = 500 characters: fits
    doc = ParsedDocument("d", "md", [paragraph("a" * 249), paragraph("b" * 250)])
    normalize(doc, MERGE)
    assert len(doc.children) == 1 and len(doc.children[0].content) == 500


def test_a_run_of_lists_stays_a_list_and_a_mixed_run_is_a_paragraph():
    lists = ParsedDocument("d", "md", [ParsedNode("list", content="- x"), ParsedNode("list", content="- y")])
    normalize(lists, MERGE)
    assert [(n.node_type, n.content) for n in lists.children] == [("list", "- x\n- y")]
    mixed = ParsedDocument("d", "md", [paragraph("Steps:"), ParsedNode("list", content="- x\n- y")])
    normalize(mixed, MERGE)
    assert [(n.node_type, n.content) for n in mixed.children] == [("paragraph", "Steps:\n- x\n- y")]


def test_code_and_images_are_not_merged():
    doc = ParsedDocument("d", "md", [paragraph("see:"), ParsedNode("code", content="print(1)"), paragraph("done")])
    normalize(doc, MERGE)
    assert [n.node_type for n in doc.children] == ["paragraph", "code", "paragraph"]


def test_first_paragraph_metadata_is_kept():
    doc = ParsedDocument("d", "pdf", [paragraph("a", page=3, page_estimated=True), paragraph("b", page=3)])
    normalize(doc, MERGE)
    assert doc.children[0].metadata == {"page": 3, "page_estimated": True, "merged": 2}


def test_merging_does_not_undo_the_split_of_a_long_paragraph():
    limits = NormalizeLimits(max_paragraph_chars=80, paragraph_target_chars=50, max_section_chars=6000,
                             merge_chars=500)
    text = "这是一个比较长的句子，用来测试切分。" * 8
    doc = ParsedDocument("d", "md", [paragraph(text)])
    normalize(doc, limits)
    assert len(doc.children) > 1
    assert all(len(n.content) <= limits.max_paragraph_chars for n in doc.children)
