from dropqa.text.bilingual import dictionary_names_a_thing, dictionary_words
from dropqa.text.lang import detect_language
from dropqa.text.segment import (
    compound_parts,
    han_bigrams,
    index_text,
    names_a_thing,
    query_terms,
    single_runs,
    tokens,
)
from dropqa.text.sentences import split_sentences, truncate


def test_search_mode_segmentation_yields_compound_and_parts():
    toks = tokens("新增授权发明专利37项")
    assert {"发明", "专利", "发明专利", "37"} <= set(toks)


def test_query_terms_drop_question_words_and_single_chars():
    terms = query_terms("星河科技2024年新增授权发明专利多少项？")
    assert "多少" not in terms and "项" not in terms and "年" not in terms
    assert {"星河", "2024", "发明专利"} <= set(terms)
    terms = query_terms("臧某某的入院时间是什么时候？从哪家医院转来？")  # "是/什么/时候": 时候 asks, it is not asked
    assert "时候" not in terms and "哪家" not in terms and {"入院", "时间", "医院"} <= set(terms)


def test_english_terms_lowercased_without_stopwords():
    assert query_terms("Who owns the Information Security Policy?") == ["owns", "information", "security", "policy"]
    # "based on", "according to", "regarding": how a question points at its source, never what it asks
    assert query_terms("Based on the record of Parker Hospital, regarding Y. Evans, what is the color of "
                       "the car according to the file?") == ["record", "parker", "hospital", "evans", "color",
                                                             "car", "file"]


def test_index_text_keeps_numbers_and_drops_punctuation():
    assert index_text("可用性为99.9%，RTO不超过30分钟").split() == [
        "可用", "可用性", "为", "99.9%", "rto", "不", "超过", "30", "分钟"]


def test_sentence_split_chinese_and_english():
    assert split_sentences("第一句。第二句！Version 2.1 is out. Next one?") == [
        "第一句。", "第二句！", "Version 2.1 is out.", "Next one?"]


def test_truncate_collapses_whitespace():
    assert truncate("a  b\n c", 10) == "a b c"
    assert truncate("x" * 20, 10) == "x" * 9 + "…"


def test_language_detection():
    assert detect_language("星图计划的预算是多少？") == "zh"
    assert detect_language("What is the RTO of the core database?") == "en"
    assert detect_language("What does 星图计划 cost?") == "en"


def test_han_bigrams_skip_everything_but_han():
    assert han_bigrams("云平台 建设 (cloud) 2024") == {"云平", "平台", "台建", "建设"}
    assert han_bigrams("cloud platform") == set() and han_bigrams("云") == set()


def test_compound_parts_are_the_words_a_chinese_compound_is_made_of():
    assert compound_parts("时间段") == ["时间"] and set(compound_parts("注意事项")) == {"注意", "事项"}
    assert compound_parts("时间") == [] and compound_parts("timeline") == []


def test_things_a_document_would_write_down_not_actions_or_question_frames():
    for thing in ("海外", "年薪", "零售价", "企业版", "卧室", "爱好", "phone", "warranty", "rpo", "attempts",
                  "orion x2", "heron-02"):
        assert names_a_thing(thing), thing
    for frame in ("抢走", "是从", "更换", "goes", "far", "quickly", "the", "much"):
        assert not names_a_thing(frame), frame


def test_a_word_jieba_cuts_into_single_characters_is_found_in_the_dictionary():
    # jieba lacks 年会 and cuts it 年 / 会; the stop words around it (的, 在) are no part of it
    assert single_runs("公司今年的年会在哪里举办？") == ["年会"]
    assert single_runs("员工几点上班？") == []
    assert dictionary_words("年会") == ["年会"]
    assert dictionary_words("章讲") == []  # 第3章讲了: no word
    assert dictionary_names_a_thing("年会")  # "annual meeting"
    assert not dictionary_names_a_thing("举办")  # "to conduct"
    assert not dictionary_names_a_thing("章讲")


def test_how_deep_asks_for_a_depth_not_for_the_words_how_deep():
    """jieba keeps 有多深 (多远, 有多高) as one word, which no text writes: the measure (深) is the term."""
    from dropqa.text.segment import query_terms

    assert "深" in query_terms("帕特纳赫峡谷有多深？") and "有多深" not in query_terms("帕特纳赫峡谷有多深？")
    assert "远" in query_terms("两地距离多远") and "多远" not in query_terms("两地距离多远")


def test_a_latin_word_with_accented_letters_is_one_token():
    """jieba's English words are ASCII: "Janáček" came out as jan / á / č / ek, and a question about Leoš Janáček
    was taken to name Jan Garbarek's page. Chinese around such words is cut as before."""
    assert tokens("Leoš Janáček was born in Hukvaldy") == ["leoš", "janáček", "was", "born", "in", "hukvaldy"]
    assert tokens("Zürich的Müller公司") == ["zürich", "的", "müller", "公司"]
    assert "janáček" in query_terms("What river flows through the city where Leoš Janáček was born?")
    assert tokens("2×3") == ["2", "3"]  # a sign, not a letter


def test_an_action_may_be_worded_otherwise_a_thing_is_named() -> None:
    """A word no passage writes says the documents lack what is asked when it names a thing ("email", "RPO",
    "turnover"); a verb or a past form ("gather", "stuck", "rebooked") is as often the asker's own wording."""
    from dropqa.text.segment import is_action_word, names_a_thing

    assert all(map(is_action_word, ["gather", "stuck", "rebooked", "chaired", "approve", "meant", "gone"]))
    assert not any(map(is_action_word, ["title", "turnover", "email", "speed", "hundred", "rpo", "warranty"]))
    assert not names_a_thing("gather") and names_a_thing("email") and names_a_thing("RPO")


def test_a_letter_labelling_a_zone_is_a_word_of_the_question() -> None:
    """"Zone B" is the row asked, not Zone K's: the letter stays; "I" and an initial do not."""
    from dropqa.text.segment import query_terms

    assert query_terms("How much does it cost to send a single pallet to Zone B?")[-2:] == ["zone", "b"]
    assert "i" not in query_terms("Can I bring a guest?") and "q" not in query_terms("Did Q. Ruiz appeal?")
    assert "a" in query_terms("What does Plan A cost per month?") and "a" not in query_terms("Is a pallet allowed?")
