"""A seq2seq chatbot: the decoder's forward ends in a softmax, and the masked NLL loss takes
`torch.log` of the probabilities `torch.gather` picks for the targets."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LuongAttnDecoderRNN(nn.Module):
    def __init__(self, embedding, hidden_size, output_size):
        super().__init__()
        self.embedding = embedding
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input_step, last_hidden, encoder_outputs):
        embedded = self.embedding(input_step)
        rnn_output, hidden = self.gru(embedded, last_hidden)
        output = self.out(rnn_output.squeeze(0))
        output = F.softmax(output, dim=1)
        return output, hidden


def maskNLLLoss(inp, target, mask):
    nTotal = mask.sum()
    crossEntropy = -torch.log(torch.gather(inp, 1, target.view(-1, 1)).squeeze(1))  # expect: GL501
    loss = crossEntropy.masked_select(mask).mean()
    return loss, nTotal.item()


def train(input_variable, target_variable, mask, max_target_len, encoder, decoder, encoder_optimizer, decoder_optimizer, clip):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    loss = 0
    encoder_outputs, encoder_hidden = encoder(input_variable)
    decoder_input = torch.LongTensor([[1] * 64])
    decoder_hidden = encoder_hidden[:2]
    for t in range(max_target_len):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden, encoder_outputs)
        decoder_input = target_variable[t].view(1, -1)
        mask_loss, nTotal = maskNLLLoss(decoder_output, target_variable[t], mask[t])
        loss += mask_loss
    loss.backward()
    nn.utils.clip_grad_norm_(encoder.parameters(), clip)
    nn.utils.clip_grad_norm_(decoder.parameters(), clip)
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item()


decoder = LuongAttnDecoderRNN(nn.Embedding(100, 64), 64, 100)
encoder = nn.GRU(64, 64)


def trainIters(pairs, encoder_optimizer, decoder_optimizer, n_iteration, clip):
    for iteration in range(1, n_iteration + 1):
        input_variable, mask, target_variable, max_target_len = pairs[iteration - 1]
        loss = train(input_variable, target_variable, mask, max_target_len, encoder, decoder, encoder_optimizer, decoder_optimizer, clip)
