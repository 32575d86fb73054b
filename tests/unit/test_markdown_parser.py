from dropqa.ingestion.parsers.markdown import bold_label, parse_markdown_text

DOC = """---
title: ignored front matter
---
Intro before any heading.

# 第3章 基础设施

## 3.2 云平台建设

预计投入 500 万预算用于容器化改造。

- 第一项
- 第二项
  - 子项

| 项目 | 预算 |
|---|---|
| 容器化 | 500万 |
| 网络 | 200万 |

```python
print("hi")
```

### 3.2.1 容器化改造

> 引用的一段话

# Second chapter
"""


def test_heading_nesting_and_content_types():
    doc = parse_markdown_text(DOC, "年报.md")
    assert doc.title == "年报"
    intro, ch3, ch_second = doc.children
    assert intro.node_type == "paragraph" and intro.content == "Intro before any heading."
    assert ch3.title == "第3章 基础设施" and ch_second.title == "Second chapter"
    (s32,) = ch3.children
    assert s32.title == "3.2 云平台建设"
    kinds = [c.node_type for c in s32.children]
    assert kinds == ["paragraph", "list", "table", "code", "section"]
    lst = s32.children[1]
    assert lst.content.splitlines() == ["- 第一项", "- 第二项", "  - 子项"]
    table = s32.children[2]
    assert table.metadata["table"] == {"header": ["项目", "预算"], "rows": [["容器化", "500万"], ["网络", "200万"]]}
    assert "项目: 容器化 | 预算: 500万" in table.content
    assert s32.children[4].title == "3.2.1 容器化改造"
    assert s32.children[4].children[0].content == "引用的一段话"


def test_ordered_lists_keep_numbers():
    doc = parse_markdown_text("1. first\n2. second\n", "x.md")
    assert doc.children[0].content == "1. first\n2. second"


def test_twenty_thousand_headings_do_not_recurse():
    text = "\n".join(f"{'#' * (1 + i % 6)} H{i}\n\ntext {i}\n" for i in range(20_000))
    doc = parse_markdown_text(text, "many.md")
    assert sum(1 for n in doc.walk() if n.is_section) == 20_000


JUDGEMENT = """# Northwood, Richmond, Court

**In the Northwood, Richmond, Court**

**CRIMINAL JUDGMENT**

**Case Procedures**

This court records the procedural history.

**1. Case Filing and Investigation:**

On the 10th of January 2023, the Procuratorate received a complaint.

**2. Arrest:**

On the 25th of January 2023, an arrest warrant was issued.

**IV. Case Statement**

The case at bar centers upon the activities of the defendant, S. Taylor.

**JAMES THOMPSON, Defendant.**

**审判长：水某某**

**Court**: Northwood, Richmond, Court\\
**Judge**: R. Jackson

**Chief Judge:**
The Honourable B. Miller

## Appendix

**Reference Article**

Article 170.
"""


def _sections(nodes, depth=0):
    for n in nodes:
        if n.is_section:
            yield depth, n.title
            yield from _sections(n.children, depth + 1)


def test_bold_lines_label_parts_of_a_document():
    doc = parse_markdown_text(JUDGEMENT, "120_judgement.md")
    assert list(_sections(doc.children)) == [
        (0, "Northwood, Richmond, Court"),
        (1, "Case Procedures"),
        (2, "1. Case Filing and Investigation"),  # a numbered step inside the part labelled before it
        (2, "2. Arrest"),
        (1, "IV. Case Statement"),  # Roman numbering numbers parts, not steps
        (1, "Appendix"),
        (2, "Reference Article"),  # below the Markdown heading it follows
    ]
    court = doc.children[0]
    # labels with nothing under them (the title lines above the first part) stay text
    assert [c.content for c in court.children[:2]] == ["In the Northwood, Richmond, Court", "CRIMINAL JUDGMENT"]
    statement = court.children[3]
    texts = [c.content for c in statement.children if not c.is_section]
    # a sentence in bold, a name with its value, and label-value lines are text of the part they are in
    assert texts == ["The case at bar centers upon the activities of the defendant, S. Taylor.",
                     "**JAMES THOMPSON, Defendant.**", "**审判长：水某某**",
                     "**Court**: Northwood, Richmond, Court\\\n**Judge**: R. Jackson",
                     "**Chief Judge:**\nThe Honourable B. Miller"]  # a label over its value: a labelled field
    step = court.children[2].children[1]
    assert step.children[0].content.startswith("On the 10th of January 2023")  # the paragraphs under a label


def test_a_bold_label_over_its_text_opens_a_section_but_a_label_with_a_colon_is_a_field():
    text = ("# Danbury, Pinehurst, Court\n\n**Upton, Georgetown, Court**\n**State of Georgetown**\n\n"
            "**Defendant:**  \nName: P. Anderson\n\n"
            "**CASE PROCEDURES**  \nOn the 1st of March, 2023, the Procuratorate received a complaint.\n\n"
            "Two days later Anderson was detained.\n\n**证据描述**：\n1. 财务报表。\n")
    doc = parse_markdown_text(text, "134_judgement.md")
    # a label alone on its paragraph opens a section with or without a colon (a list interrupts the paragraph)
    assert list(_sections(doc.children)) == [(0, "Danbury, Pinehurst, Court"), (1, "CASE PROCEDURES"),
                                             (1, "证据描述")]
    court = doc.children[0]
    # bold lines one under another are a title block; a label ending in a colon, a field over its value
    assert [c.content for c in court.children[:2]] == ["**Upton, Georgetown, Court**\n**State of Georgetown**",
                                                       "**Defendant:**  \nName: P. Anderson"]
    procedures = court.children[2]
    assert [c.content for c in procedures.children] == [
        "On the 1st of March, 2023, the Procuratorate received a complaint.", "Two days later Anderson was detained."]


def test_bold_label_shapes():
    assert bold_label("**Case Statement**") == "Case Statement"
    assert bold_label("**Evidence Description:**  ") == "Evidence Description"
    assert bold_label("__Present Illness__：") == "Present Illness"
    assert bold_label("**（1）关于销售假冒X牌洗发水的证据：**") == "（1）关于销售假冒X牌洗发水的证据"
    assert bold_label("**Name:** J. Thomas") is None
    assert bold_label("**a sentence that goes on and on for far more words than any label**") is None
    assert bold_label("plain text") is None
    assert bold_label("**Chief Complaint:**\nPersistent joint pain") is None  # a label over its value


def test_a_bold_line_stating_a_date_is_text_a_dated_part_label_is_a_label():
    """A judgement signs off "**Judgment Issued on 20th March 2023**" over its judges' names: the date is what the
    line says ("what was the judgment date?"), so it stays in the passage's text, not in a heading above it."""
    assert bold_label("**Judgment Issued on 20th March 2023**  ") is None
    assert bold_label("**2023年5月20日**") is None
    assert bold_label("**Incident on 22nd December 2022:**") == "Incident on 22nd December 2022"
    assert bold_label("**2023年工作计划**") == "2023年工作计划"
    doc = parse_markdown_text("# Judgment\n\n## Appeal Rights\n\nG. Torres may appeal within ten days.\n\n"
                              "**Judgment Issued on 20th March 2023**  \nChief Judge Q. Martin  \nJudge V. Smith\n",
                              "122_judgement.md")
    appeal = doc.children[0].children[0]
    assert [c.is_section for c in appeal.children] == [False, False]
    assert appeal.children[1].content.startswith("**Judgment Issued on 20th March 2023**")
