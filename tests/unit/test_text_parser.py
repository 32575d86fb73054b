from dropqa.ingestion.parsers.text import parse_plain_text

MINUTES = """产品评审会会议纪要
时间：2025年4月8日

一、会议议题
评审发布计划。

二、会议决定
1. 发布日期定为2025年5月20日。
2. 成本看板推迟到3.1版本。
"""


def test_numbered_headings_become_sections():
    doc = parse_plain_text(MINUTES, "纪要.txt")
    titles = [n.title for n in doc.children if n.is_section]
    assert titles == ["一、会议议题", "二、会议决定"]
    decisions = doc.children[-1]
    assert decisions.children[0].node_type == "list"
    assert "2025年5月20日" in decisions.children[0].content


def test_chapter_and_decimal_levels():
    text = ("第一章 总则\n\n1.1 目的\n为了规范管理。\n\n1.2 范围\n适用于全体员工。\n\n"
            "第二章 细则\n\n具体规定如下，共三条。\n")
    doc = parse_plain_text(text, "办法.txt")
    ch1, ch2 = doc.children
    assert ch1.title == "第一章 总则" and [c.title for c in ch1.children] == ["1.1 目的", "1.2 范围"]
    assert ch2.title == "第二章 细则" and ch2.children[0].content == "具体规定如下，共三条。"


def test_chat_log_grouped_by_day_with_speakers():
    text = (
        "群聊导出\n————\n\n2025-03-02 08:47 王磊\n订单服务出故障了。\n\n2025-03-02 08:49 赵宏\n收到。\n\n"
        "2025-03-05 12:05 周婷\n团建就定在安吉。\n\n2025-03-05 12:06 何静\n好的\n"
    )
    doc = parse_plain_text(text, "chat.txt")
    assert doc.metadata["layout"] == "chat"
    preamble, day1, day2 = doc.children
    assert preamble.content == "群聊导出"
    assert day1.title == "2025-03-02" and day2.title == "2025-03-05"
    assert day1.children[0].content == "王磊（08:47）：订单服务出故障了。"
    assert day2.children[0].metadata == {"speaker": "周婷", "timestamp": "2025-03-05 12:05"}


def test_inline_chat_format():
    text = "\n".join(f"[2024-01-0{d} 10:0{d}] 用户{d}: 消息{d}" for d in range(1, 6))
    doc = parse_plain_text(text, "c.txt")
    assert [n.title for n in doc.children] == [f"2024-01-0{d}" for d in range(1, 6)]


def test_plain_blocks_without_headings_are_paragraphs():
    doc = parse_plain_text("First block line one\nline two.\n\nSecond block.", "p.txt")
    assert [n.content for n in doc.children] == ["First block line one\nline two.", "Second block."]


def test_title_like_lines():
    text = ("Background\n\nThe project started in 2023 after a long review of options.\n\n"
            "Goals\n\nWe want to cut costs by half over two years.\n")
    doc = parse_plain_text(text, "t.txt")
    assert [n.title for n in doc.children] == ["Background", "Goals"]
