'use strict';
/**
 * A notice says one thing, in at most 60 words and one or two sentences (the
 * rest belongs in the docs page of the node's Docs link). Used by the jest test over the node
 * descriptions (test/unit/noticeLength.test.ts) and by the browser suite over what n8n shows.
 */
const MAX_NOTICE_WORDS = 60;
const MAX_NOTICE_SENTENCES = 2;

/** Words: runs of non-space characters that hold a letter or a digit. */
function wordCount(text) {
	return String(text)
		.replace(/<[^>]+>/g, ' ')
		.split(/\s+/)
		.filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}

/**
 * Sentences: ended by . ! or ? (and any closing quote or bracket) before a capital letter, a quote
 * or the end of the text. "e.g. 1.03", "1.x" and "i.e." do not end one.
 */
function sentenceCount(text) {
	const plain = String(text)
		.replace(/<[^>]+>/g, ' ')
		.replace(/\b(e\.g|i\.e|etc|vs)\./gi, '$1')
		.trim();
	if (!plain) return 0;
	const ends = plain.match(/[.!?]+["'”’)\]]*(?=\s+["'“‘(]?[\p{Lu}\p{N}]|\s*$)/gu) || [];
	// A last sentence without a full stop still counts.
	return ends.length + (/[.!?]["'”’)\]]*\s*$/.test(plain) ? 0 : 1);
}

/**
 * The texts a notice can show. Plain text is itself. An expression (`=…`) shows its literal text
 * with "…" for each {{ }} part; a whole `={{ … }}` shows one of its string results (the literals
 * after ?, :, (, ||, ?? or at the start). Returns [] when nothing can be read.
 */
function noticeVariants(text) {
	const value = String(text);
	if (!value.startsWith('=')) return [value];
	const body = value.slice(1);
	const whole = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(body);
	if (!whole) return [body.replace(/\{\{[\s\S]*?\}\}/g, '…')];
	const variants = [];
	for (const match of whole[1].matchAll(/(^|\?\?|\|\||[?:(,])\s*(["'`])((?:\\.|(?!\2)[^\\])*)\2/g))
		variants.push(match[3]);
	return variants;
}

/** What is wrong with a notice's text: [] when it is short enough. */
function noticeProblems(text) {
	const variants = noticeVariants(text);
	if (variants.length === 0) return ['an expression whose text cannot be read here'];
	const problems = [];
	for (const variant of variants) {
		const words = wordCount(variant);
		const sentences = sentenceCount(variant);
		if (words > MAX_NOTICE_WORDS) problems.push(`${words} words (at most ${MAX_NOTICE_WORDS})`);
		if (sentences > MAX_NOTICE_SENTENCES)
			problems.push(`${sentences} sentences (at most ${MAX_NOTICE_SENTENCES})`);
	}
	return [...new Set(problems)];
}

module.exports = {
	MAX_NOTICE_WORDS,
	MAX_NOTICE_SENTENCES,
	wordCount,
	sentenceCount,
	noticeVariants,
	noticeProblems,
};
